package io.sentinel.engine;

import io.sentinel.arbitration.Arbiter;
import io.sentinel.arbitration.Decision;
import io.sentinel.derived.DerivedLayer;
import io.sentinel.derived.LagTime;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointTable;
import io.sentinel.point.Sample;
import io.sentinel.rule.RuleChanges;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules engine: a pure, single-threaded function of the rule set, the timed sequence of samples
 * and the clock it is handed. Nothing here reads the wall clock or blocks.
 *
 * <p>Time is discrete: every distinct instant at which samples arrive or a timer falls due is one
 * step. A step applies its samples, lets derived points settle, then visits each affected rule
 * once. A pass hands the engine whatever arrived up to {@code now}; how samples are grouped into
 * passes never changes a decision, as long as a pass does not split the samples of one instant.
 *
 * <p>This class is the engine's face and the assembly of its rooms: {@link Stepping} (the pass and
 * its steps), {@link Triggers} (which rules a step visits), {@link RulePolicy} (warmup, input loss,
 * suspension, evaluation), {@link ClaimBook} (claim diff, expiry, arbitration), {@link
 * RuleActions}, {@link FlapLimit}, {@link OperatorRequests}, {@link RevisionHandOver} (activation)
 * and {@link RestartState} (restore).
 */
public final class Engine {
  final RuleSet ruleSet;
  final PointTable points;
  final RuleRuntime[] rules;
  final Map<String, RuleRuntime> byId = new HashMap<>();

  /** The last generation of every rule id this engine or one it took over from has run. */
  final Map<String, Long> generations = new HashMap<>();

  final EngineLimits limits;
  final LagTime lagTime;
  final DerivedLayer derived;
  final Instant start;

  final PassOutputs out = new PassOutputs();
  final Timers timers = new Timers();
  final Triggers triggers;
  final FlapLimit flaps;
  final ClaimBook claims;
  final RulePolicy policy;
  final OperatorRequests operator;

  final Stepping stepping = new Stepping(this);

  Instant clock;
  boolean activated;

  public Engine(RuleSet ruleSet, Instant start, StartMode mode) {
    this(ruleSet, start, mode, EngineLimits.DEFAULT);
  }

  public Engine(RuleSet ruleSet, Instant start, StartMode mode, EngineLimits limits) {
    this(
        ruleSet,
        new PointTable(ruleSet.registry(), start),
        new LagTime(start),
        start,
        start,
        limits);
    if (mode == StartMode.WARM) {
      points.markAllLiveSinceStart();
    }
    for (RuleRuntime r : rules) {
      r.warmupFrom = start;
      if (mode == StartMode.WARM && r.rule.enabled()) {
        r.state = RuleState.ACTIVE;
      } else {
        policy.begin(r, start, "fail-safe at start");
      }
    }
    claims.settle(start);
  }

  /** The parts every engine has: points, derived layer, arbiter, rules and their dependencies. */
  Engine(
      RuleSet ruleSet,
      PointTable points,
      LagTime lagTime,
      Instant start,
      Instant clock,
      EngineLimits limits) {
    this.ruleSet = ruleSet;
    this.points = points;
    this.limits = limits;
    this.lagTime = lagTime;
    this.derived = new DerivedLayer(ruleSet.derived(), points, lagTime, clock);
    this.clock = clock;
    this.start = start;
    var list = ruleSet.rules();
    rules = new RuleRuntime[list.size()];
    Map<io.sentinel.expr.Condition, io.sentinel.expr.Condition> conditions = new HashMap<>();
    StepInstant step = new StepInstant();
    for (int i = 0; i < rules.length; i++) {
      RuleRuntime r =
          new RuleRuntime(list.get(i), i, points, limits.evaluationsPerRule(), conditions, step);
      RulePolicy.prepare(r);
      rules[i] = r;
      byId.put(r.rule.id(), r);
    }
    this.triggers = new Triggers(rules, points.size());
    this.flaps = new FlapLimit(limits, timers, out, this::pointSettled);
    this.claims = new ClaimBook(new Arbiter(id -> specOf(id).releaseValue()), flaps, timers, out);
    this.policy = new RulePolicy(limits, lagTime, claims, timers, triggers, out, step);
    this.operator = new OperatorRequests(points, claims, timers, out);
  }

  /** A frozen point settled (the flap limit): arbitration decides it again. */
  private void pointSettled(String pointId) {
    claims.markChanged(pointId);
  }

  /** What an activation produced: the engine that runs the new set, and what changed at once. */
  public record Activation(Engine engine, RuleChanges changes, PassResult result) {}

  /**
   * Hands over to a new rule set between two passes, at this engine's clock (docs/revisions.md). A
   * rule whose definition hash is unchanged keeps its whole state (warmup left, claims, latch,
   * cooldowns, evaluation history, timers); toggling {@code enabled} keeps it too. A changed or new
   * rule starts in warmup from now, a fail-safe interlock asserting its protective value; the
   * claims of a changed or removed rule are released. Points and derived points whose definition is
   * unchanged keep their value, quality and state. This engine must not be used afterwards.
   */
  public Activation activate(RuleSet next) {
    return RevisionHandOver.activate(this, next);
  }

  public RuleSet ruleSet() {
    return ruleSet;
  }

  PointSpec specOf(String pointId) {
    return points.spec(points.indexOf(pointId));
  }

  public PointTable points() {
    return points;
  }

  /** The instant up to which the engine has processed time. */
  public Instant clock() {
    return clock;
  }

  /** When the engine next has something to do without new samples, if ever. */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(nextDueOrNull());
  }

  /** {@link #nextDue()} without the {@code Optional}s: null for never. */
  Instant nextDueOrNull() {
    Instant rule = timers.nextDueOrNull();
    Instant memory = derived.nextDueOrNull();
    if (rule != null && memory != null) {
      return rule.isBefore(memory) ? rule : memory;
    }
    return rule != null ? rule : memory;
  }

  /** The derived points' state as JSON, to persist and restore across a restart. */
  public String derivedSnapshot() {
    return derived.snapshot();
  }

  /** Takes back derived state saved by {@link #derivedSnapshot()} (before the first pass). */
  public void restoreDerived(String json) {
    derived.restore(json);
  }

  /**
   * Takes back when an action last fired before a restart (before the first pass), so that its
   * cooldown runs on across the restart instead of starting afresh. False when the rule or the
   * action no longer exists.
   */
  public boolean restoreCooldown(String ruleId, int actionIndex, Instant lastFired) {
    return restoreCooldown(ruleId, actionIndex, lastFired, 0);
  }

  /**
   * As {@link #restoreCooldown(String, int, Instant)}, where the action last fired in {@code
   * generation} (its {@link ActionId}): the restarted rule numbers its actions in a later one, so
   * an id the log holds is never issued again.
   */
  public boolean restoreCooldown(
      String ruleId, int actionIndex, Instant lastFired, long generation) {
    RuleRuntime r = byId.get(ruleId);
    if (r == null || actionIndex < 0 || actionIndex >= r.actionLastFired.length) {
      return false;
    }
    r.generation = Math.max(r.generation, generation + 1);
    Instant current = r.actionLastFired[actionIndex];
    if (current == null || lastFired.isAfter(current)) {
      r.actionLastFired[actionIndex] = lastFired;
    }
    return true;
  }

  public Optional<RuleStatus> status(String ruleId) {
    return Optional.ofNullable(byId.get(ruleId))
        .map(r -> new RuleStatus(r.rule.id(), r.state, r.lastCondition, r.held));
  }

  public List<RuleStatus> statuses() {
    return Arrays.stream(rules)
        .map(r -> new RuleStatus(r.rule.id(), r.state, r.lastCondition, r.held))
        .toList();
  }

  /** The current arbitration outcome of a point. */
  public Decision decision(String pointId) {
    return claims.decide(pointId);
  }

  /** What was last sent towards a point: the last decision that left arbitration, if any. */
  public Optional<Decision> output(String pointId) {
    return claims.output(pointId);
  }

  /** Every point with at least one claim, sorted (the claims themselves: {@link #decision}). */
  public List<String> claimedPoints() {
    return claims.claimedPoints();
  }

  /**
   * Asks for a suspended rule to be resumed at the next pass (an operator's decision): it leaves
   * suspension, its evaluation count starts afresh and it decides again at once. A rule that is not
   * suspended by then is left as it is.
   */
  public void resume(String ruleId) {
    operator.resume(ruleId);
  }

  /**
   * Asks for an operator override at the next pass; it replaces the point's override, if any. The
   * point must be registered and the override must pass {@link OperatorOverride#check} at the
   * engine's clock.
   *
   * @throws IllegalArgumentException naming the field at fault otherwise
   */
  public void override(OperatorOverride o) {
    operator.override(o, clock);
  }

  /** Asks for the point's override to end at the next pass (nothing happens if it has none). */
  public void clearOverride(String pointId) {
    operator.clear(pointId);
  }

  /** The overrides in force, by point. */
  public Map<String, OperatorOverride> overrides() {
    return operator.inForce();
  }

  /** Whether any override is in force, without a copy (asked after every pass). */
  public boolean hasOverrides() {
    return operator.any();
  }

  /**
   * Takes back the overrides in force before a restart (before the first pass), each with its
   * original end: it claims from the first pass, as if the gateway had not stopped. One that ended
   * while the gateway was down is not restored: an {@code override-expired} event and a release of
   * its claim (an audit record of kind {@code override}) say so. One whose point is gone, or that
   * no longer fits its point (direction, type, range), is dropped with an {@code override-dropped}
   * event naming why (and the release, when the point is still registered).
   *
   * @return what was not restored, one line each (the gateway logs them)
   */
  public List<String> restoreOverrides(Collection<OperatorOverride> kept) {
    List<String> notes = operator.restore(kept, clock);
    claims.settle(clock);
    return notes;
  }

  /** The rules whose hold_until latch is set: state to keep across a restart. */
  public Set<String> latchedRules() {
    Set<String> latched = new TreeSet<>();
    for (RuleRuntime r : rules) {
      if (r.latched) {
        latched.add(r.rule.id());
      }
    }
    return latched;
  }

  /**
   * Sets the latches saved before a restart (before the first pass): a latched rule asserts its
   * claims from the first instant, like a fail-safe interlock, until its hold_until holds.
   */
  public void restoreLatches(Set<String> ruleIds) {
    for (String id : ruleIds) {
      RuleRuntime r = byId.get(id);
      if (r != null) {
        policy.restoreLatch(r, clock);
      }
    }
    claims.settle(clock);
  }

  /**
   * Processes everything up to {@code now}: the samples (each at its own instant, which must not
   * lie before the engine's clock or after {@code now}) and the timers due.
   *
   * @param ingestLagging whether the runtime reports ingest lag over this pass (a backlog drained);
   *     while it does, warmup deadlines do not run down, no rule leaves warmup, and a live sample
   *     does not count as its point's having been live since start (docs/live.md)
   */
  public PassResult pass(Instant now, List<Sample> samples, boolean ingestLagging) {
    return stepping.pass(now, samples, ingestLagging);
  }
}
