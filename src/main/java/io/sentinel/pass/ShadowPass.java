package io.sentinel.pass;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.command.Command;
import io.sentinel.command.CommandSettings;
import io.sentinel.engine.ClaimChange;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.point.PointState;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A shadow revision beside the active set (docs/shadow.md): the same {@link Pass} composition, with
 * an engine of its own, its command plane's commands handed to a recorder, never to a device. It is
 * fed what the active pass was fed, at the same instants, and after each pass compares, for every
 * point either pass touched, each rule's claim and the decision (what would be commanded) with the
 * active engine's. It reports a difference when one appears or changes, and again when the two
 * agree once more. Pure: the caller says what time it is, and runs it after the active pass.
 */
public final class ShadowPass {
  /** A claim or a command where the shadow and the active set part, or meet again. */
  public record Difference(
      Kind kind,
      String pointId,
      Optional<String> ruleId,
      Optional<Value> active,
      Optional<Value> shadow,
      Optional<String> activeRule,
      Optional<String> shadowRule,
      Instant at,
      boolean differs) {

    /** {@code claim}: one rule's claim on the point; {@code command}: arbitration's outcome. */
    public enum Kind {
      CLAIM,
      COMMAND;

      public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
      }
    }

    /** What it is about: kind, point and (for a claim) rule; one open difference each. */
    public String key() {
      return kind.wireName() + "|" + pointId + "|" + ruleId.orElse("");
    }

    boolean sameAs(Difference o) {
      return active.equals(o.active)
          && shadow.equals(o.shadow)
          && activeRule.equals(o.activeRule)
          && shadowRule.equals(o.shadowRule);
    }
  }

  private final Pass pass;
  private final Map<String, Difference> open = new TreeMap<>();

  private ShadowPass(Pass pass) {
    this.pass = pass;
  }

  /**
   * A shadow engine for {@code candidate} at the active engine's clock. With {@code cold} (a
   * gateway's start, before its first pass) it starts as the active engine does: every rule in
   * warmup, the values restored from before the restart. Otherwise (a shadow pushed while the
   * gateway runs) it starts warm: every rule active at once, on the active engine's present point
   * values, derived state (by definition), latches (of unchanged rules) and operator overrides, so
   * that it differs only where its rules decide otherwise. A condition held {@code for} a time
   * starts timing then.
   *
   * @param recorder takes each command the shadow would have sent
   */
  public static ShadowPass start(
      Engine active,
      RuleSet candidate,
      boolean cold,
      EngineLimits limits,
      CommandSettings settings,
      Consumer<Command> recorder) {
    Instant now = active.clock();
    Engine engine = new Engine(candidate, now, cold ? StartMode.COLD : StartMode.WARM, limits);
    engine.restoreDerived(active.derivedSnapshot());
    PointTable from = active.points();
    List<Sample> seed = new ArrayList<>();
    for (int i = 0; i < from.size(); i++) {
      String id = from.spec(i).id();
      PointState s = from.state(i);
      if (s.quality() == Quality.UNKNOWN
          || candidate.derived().contains(id)
          || active.ruleSet().derived().contains(id)
          || engine.points().indexOf(id) < 0) {
        continue;
      }
      if (s.quality() == Quality.RESTORED) {
        engine.points().restore(id, s.value(), s.since());
      } else {
        seed.add(new Sample(id, s.value(), s.quality(), now));
      }
    }
    // A latch carries over only where the rule is the same (as an activation keeps it).
    java.util.Set<String> same = new java.util.HashSet<>();
    java.util.Map<String, String> hashes = new java.util.HashMap<>();
    active.ruleSet().rules().forEach(r -> hashes.put(r.id(), r.definitionHash()));
    candidate.rules().stream()
        .filter(r -> r.definitionHash().equals(hashes.get(r.id())))
        .forEach(r -> same.add(r.id()));
    java.util.Set<String> latched = new java.util.TreeSet<>(active.latchedRules());
    latched.retainAll(same);
    engine.restoreLatches(latched);
    engine.restoreOverrides(active.overrides().values());
    ShadowPass shadow = new ShadowPass(Pass.recording(engine, settings, "shadow", recorder));
    if (!cold) {
      shadow.pass.run(now, seed, false);
    }
    return shadow;
  }

  public Pass pass() {
    return pass;
  }

  public Engine engine() {
    return pass.engine();
  }

  /** When the shadow has something to do without new samples, if ever. */
  public Optional<Instant> nextDue() {
    return pass.nextDue();
  }

  /** The differences open now (claims and commands where the two part), by key. */
  public Collection<Difference> open() {
    return List.copyOf(open.values());
  }

  /**
   * The shadow's pass at {@code now} with the active pass's samples and lag, then the comparison of
   * every point either pass touched. Returns what changed: differences new or changed, and those
   * that closed (with {@code differs} false).
   */
  public List<Difference> follow(
      Instant now, List<Sample> samples, boolean lagging, Engine active, PassResult activeResult) {
    Pass.Outcome o = pass.run(now, samples, lagging);
    TreeSet<String> touched = new TreeSet<>();
    touch(touched, activeResult);
    touch(touched, o.result());
    return compare(touched, active, now);
  }

  /** Every point either engine claims or commanded (after the active set changed). */
  public List<Difference> compareAll(Engine active, Instant now) {
    TreeSet<String> points = new TreeSet<>(active.claimedPoints());
    points.addAll(engine().claimedPoints());
    open.values().forEach(d -> points.add(d.pointId()));
    PointTable table = active.points();
    for (int i = 0; i < table.size(); i++) {
      String id = table.spec(i).id();
      if (active.output(id).isPresent() || engine().output(id).isPresent()) {
        points.add(id);
      }
    }
    return compare(points, active, now);
  }

  private static void touch(TreeSet<String> touched, PassResult r) {
    for (Decision d : r.decisions()) {
      touched.add(d.pointId());
    }
    for (ClaimChange c : r.claimChanges()) {
      touched.add(c.pointId());
    }
  }

  private List<Difference> compare(Collection<String> points, Engine active, Instant now) {
    List<Difference> changed = new ArrayList<>();
    Engine shadow = engine();
    for (String point : points) {
      if (shadow.points().indexOf(point) < 0 || active.points().indexOf(point) < 0) {
        continue;
      }
      Map<String, Difference> now_ = new LinkedHashMap<>();
      Decision a = active.decision(point);
      Decision s = shadow.decision(point);
      Map<String, Value> aClaims = claims(a);
      Map<String, Value> sClaims = claims(s);
      TreeSet<String> rules = new TreeSet<>(aClaims.keySet());
      rules.addAll(sClaims.keySet());
      for (String rule : rules) {
        Value av = aClaims.get(rule);
        Value sv = sClaims.get(rule);
        if (!Objects.equals(av, sv)) {
          Difference d =
              new Difference(
                  Difference.Kind.CLAIM,
                  point,
                  Optional.of(rule),
                  Optional.ofNullable(av),
                  Optional.ofNullable(sv),
                  Optional.ofNullable(av).map(v -> rule),
                  Optional.ofNullable(sv).map(v -> rule),
                  now,
                  true);
          now_.put(d.key(), d);
        }
      }
      Optional<Decision> ao = active.output(point);
      Optional<Decision> so = shadow.output(point);
      Optional<Value> av = ao.flatMap(Decision::value);
      Optional<Value> sv = so.flatMap(Decision::value);
      Optional<String> ar = ao.flatMap(Decision::winner).map(Claim::ruleId);
      Optional<String> sr = so.flatMap(Decision::winner).map(Claim::ruleId);
      if (!av.equals(sv) || !ar.equals(sr)) {
        Difference d =
            new Difference(
                Difference.Kind.COMMAND, point, sr.or(() -> ar), av, sv, ar, sr, now, true);
        now_.put(d.key(), d);
      }
      for (Difference d : now_.values()) {
        Difference before = open.get(d.key());
        if (before == null || !before.sameAs(d)) {
          open.put(d.key(), d);
          changed.add(d);
        }
      }
      for (var it = open.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Difference> e = it.next();
        Difference d = e.getValue();
        if (d.pointId().equals(point) && !now_.containsKey(e.getKey())) {
          it.remove();
          changed.add(closed(d, a, ao, now));
        }
      }
    }
    return changed;
  }

  /** A difference that closed: both sides now agree on what {@code d} was about. */
  private static Difference closed(
      Difference d, Decision activeDecision, Optional<Decision> output, Instant now) {
    Optional<Value> value;
    Optional<String> rule;
    if (d.kind() == Difference.Kind.CLAIM) {
      value = Optional.ofNullable(claims(activeDecision).get(d.ruleId().orElseThrow()));
      rule = value.isPresent() ? d.ruleId() : Optional.empty();
    } else {
      value = output.flatMap(Decision::value);
      rule = output.flatMap(Decision::winner).map(Claim::ruleId);
    }
    return new Difference(d.kind(), d.pointId(), d.ruleId(), value, value, rule, rule, now, false);
  }

  private static Map<String, Value> claims(Decision d) {
    Map<String, Value> m = new TreeMap<>();
    for (Claim c : d.contenders()) {
      m.put(c.ruleId(), c.value());
    }
    return m;
  }
}
