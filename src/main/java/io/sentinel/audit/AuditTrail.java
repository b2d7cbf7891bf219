package io.sentinel.audit;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ClaimChange;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.PassResult;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns a pass into audit entries: a {@code firing} for every claim a rule asserted, a {@code
 * release} for every claim a rule released, an {@code action} for every action that fired, a {@code
 * conflict} for every decision taken between two or more claims, an {@code override} for every
 * operator override set, cleared or expired, a {@code resume} for every suspended rule an operator
 * resumed (and, made by their callers, {@code revision} at an activation and {@code core} at a
 * standby's takeover). Event ids are derived, like seed 003's firing ids, from what happened and
 * when: the kind, the rule or point, the revision and the engine cycle (with a counter when one
 * pass holds two of the same), so a replay of the same observations derives the same ids and no
 * restart reuses one.
 */
public final class AuditTrail {
  private final RuleSet ruleSet;
  private final long revision;
  private final Function<String, Optional<PointState>> pointState;
  private final Function<String, Decision> currentDecision;

  /**
   * @param pointState a point's state after the pass (the engine's point table)
   * @param currentDecision a point's arbitration outcome after the pass
   */
  public AuditTrail(
      RuleSet ruleSet,
      long revision,
      Function<String, Optional<PointState>> pointState,
      Function<String, Decision> currentDecision) {
    this.ruleSet = ruleSet;
    this.revision = revision;
    this.pointState = pointState;
    this.currentDecision = currentDecision;
  }

  public List<AuditEntry> entries(Instant now, PassResult result) {
    long cycle = now.toEpochMilli();
    Map<String, Integer> ids = new HashMap<>();
    Map<String, Decision> decided = new HashMap<>();
    result.decisions().forEach(d -> decided.put(d.pointId(), d));
    List<AuditEntry> out = new ArrayList<>();
    // An operator's resume comes first: it took effect at the start of the pass.
    for (ControlEvent e : result.events()) {
      if (e.kind().equals(ControlEvent.RULE_RESUMED)) {
        Rule rule = ruleSet.rule(e.subject()).orElseThrow();
        out.add(
            new AuditEntry(
                id(ids, "resume", rule.id(), cycle),
                "resume",
                rule.id(),
                revision,
                inputs(rule),
                List.of(),
                rule.band().wireName(),
                rule.priority(),
                "",
                List.of(),
                "",
                "",
                cycle,
                e.at(),
                e.message(),
                Map.of()));
      }
    }
    for (ClaimChange c : result.claimChanges()) {
      if (c.ruleId().equals(OperatorOverride.RULE_ID)) {
        out.add(override(ids, c, decided, cycle));
        continue;
      }
      Decision d = decided.getOrDefault(c.pointId(), currentDecision.apply(c.pointId()));
      if (c.isRelease()) {
        out.add(release(ids, c, d, cycle));
        continue;
      }
      Rule rule = ruleSet.rule(c.ruleId()).orElseThrow();
      out.add(
          claimEntry(
              ids,
              "firing",
              c.ruleId() + "/" + c.pointId(),
              c,
              d,
              inputs(rule),
              rule.priority(),
              cycle,
              Map.of("claimed", c.value().orElseThrow().toPlain())));
    }
    for (ActionFired a : result.actions()) {
      Rule rule = ruleSet.rule(a.ruleId()).orElseThrow();
      Optional<String> point = Optional.ofNullable(a.fields().get("point"));
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("action_id", a.id());
      detail.put("action", a.kind());
      detail.put("fields", new java.util.TreeMap<>(a.fields()));
      out.add(
          new AuditEntry(
              id(ids, "action", a.id(), cycle),
              "action",
              a.ruleId(),
              revision,
              inputs(rule),
              point.map(p -> List.of(output(currentDecision.apply(p)))).orElse(List.of()),
              rule.band().wireName(),
              rule.priority(),
              "",
              List.of(),
              point.map(this::device).orElse(""),
              zone(point.orElse(""), a.fields()),
              cycle,
              a.at(),
              "condition true",
              detail));
    }
    for (Decision d : result.decisions()) {
      if (d.contenders().size() < 2) {
        continue;
      }
      Claim winner = d.winner().orElseThrow();
      out.add(
          new AuditEntry(
              id(ids, "conflict", d.pointId(), cycle),
              "conflict",
              winner.ruleId(),
              revision,
              ruleSet.rule(winner.ruleId()).map(this::inputs).orElse(Map.of()),
              List.of(output(d)),
              winner.band().wireName(),
              winner.priority(),
              d.decidingKey(),
              contenders(d),
              device(d.pointId()),
              zone(d.pointId(), Map.of()),
              cycle,
              now,
              "arbitration",
              Map.of()));
    }
    return out;
  }

  /**
   * A rule's claim released (issue 17: audited like an assertion): kind {@code release}, the rule's
   * inputs as they stood, what arbitration made of the point after it, and why in {@code reason}. A
   * rule a revision removed is no longer in the set: its entry names it without inputs.
   */
  private AuditEntry release(Map<String, Integer> ids, ClaimChange c, Decision d, long cycle) {
    Optional<Rule> rule = ruleSet.rule(c.ruleId());
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("released", true);
    return claimEntry(
        ids,
        "release",
        c.ruleId() + "/" + c.pointId(),
        c,
        d,
        rule.map(this::inputs).orElse(Map.of()),
        rule.map(Rule::priority).orElse(0),
        cycle,
        detail);
  }

  /**
   * An operator override set, cleared or expired: kind {@code override}, the override's pseudo rule
   * id, no inputs, and what the operator asked for (or why it ended) in {@code reason}.
   */
  private AuditEntry override(
      Map<String, Integer> ids, ClaimChange c, Map<String, Decision> decided, long cycle) {
    Decision d = decided.getOrDefault(c.pointId(), currentDecision.apply(c.pointId()));
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("claimed", c.value().map(v -> v.toPlain()).orElse(null));
    detail.put("ended", c.isRelease());
    return claimEntry(
        ids, "override", c.pointId(), c, d, Map.of(), OperatorOverride.PRIORITY, cycle, detail);
  }

  /** A claim change as an entry: what arbitration made of its point, and why it changed. */
  private AuditEntry claimEntry(
      Map<String, Integer> ids,
      String kind,
      String subject,
      ClaimChange c,
      Decision d,
      Map<String, Map<String, Object>> inputs,
      int priority,
      long cycle,
      Map<String, Object> detail) {
    return new AuditEntry(
        id(ids, kind, subject, cycle),
        kind,
        c.ruleId(),
        revision,
        inputs,
        List.of(output(d)),
        c.band().wireName(),
        priority,
        d.decidingKey(),
        contenders(d),
        device(c.pointId()),
        zone(c.pointId(), Map.of()),
        cycle,
        c.at(),
        c.reason(),
        detail);
  }

  /**
   * The {@code revision} entry: this trail's revision became the active rule set at {@code at};
   * {@code detail} says where it came from, who signed it and what it changed.
   */
  public AuditEntry activation(Instant at, Map<String, Object> detail) {
    return ofTheCore(
        "revision/r" + revision + "/" + at.toEpochMilli(), "revision", at, "activated", detail);
  }

  /**
   * The {@code core} entry, with a standby (docs/standby.md): from {@code at} the core {@code
   * holder} issues what follows in the chain, up to the next such entry; {@code detail} has its
   * epoch and the prefix its command ids carry.
   */
  public AuditEntry tenure(Instant at, String holder, long epoch, Map<String, Object> detail) {
    return ofTheCore(
        "core/e" + epoch + "/r" + revision + "/" + at.toEpochMilli(),
        "core",
        at,
        "active core " + holder + ", epoch " + epoch,
        detail);
  }

  /** An entry about the engine as a whole: no rule, inputs, outputs or contenders. */
  private AuditEntry ofTheCore(
      String eventId, String kind, Instant at, String reason, Map<String, Object> detail) {
    return new AuditEntry(
        eventId,
        kind,
        "",
        revision,
        Map.of(),
        List.of(),
        "",
        0,
        "",
        List.of(),
        "",
        "",
        at.toEpochMilli(),
        at,
        reason,
        detail);
  }

  private String id(Map<String, Integer> ids, String kind, String subject, long cycle) {
    String base = kind + "/" + subject + "/r" + revision + "/" + cycle;
    int n = ids.merge(base, 1, Integer::sum);
    return n == 1 ? base : base + "." + n;
  }

  private Map<String, Map<String, Object>> inputs(Rule rule) {
    Map<String, Map<String, Object>> m = new LinkedHashMap<>();
    rule.inputs()
        .forEach(
            (name, point) -> {
              Map<String, Object> v = new LinkedHashMap<>();
              v.put("point", point);
              Optional<PointState> s = pointState.apply(point);
              v.put("value", s.map(st -> st.value().toPlain()).orElse(null));
              v.put("quality", s.map(st -> st.quality().wireName()).orElse("unknown"));
              m.put(name, v);
            });
    return m;
  }

  private static Map<String, Object> output(Decision d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("point", d.pointId());
    m.put("value", d.value().map(v -> v.toPlain()).orElse(null));
    m.put("rule", d.winner().map(Claim::ruleId).orElse(null));
    return m;
  }

  /** Every claim on the point, in arbitration order, as the log keeps it. */
  public static List<Map<String, Object>> contenders(Decision d) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Claim c : d.contenders()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("rule", c.ruleId());
      m.put("band", c.band().wireName());
      m.put("priority", c.priority());
      m.put("value", c.value().toPlain());
      out.add(m);
    }
    return out;
  }

  /** The device behind a point: its driver ({@code gpio:17}, {@code mqtt:<topic or point>}). */
  private String device(String pointId) {
    Optional<PointDriver> driver = ruleSet.registry().find(pointId).flatMap(PointSpec::driver);
    if (driver.isEmpty()) {
      return "";
    }
    if (driver.get() instanceof PointDriver.Gpio g) {
      return "gpio:" + g.pin();
    }
    return "mqtt:" + ((PointDriver.Mqtt) driver.get()).topic().orElse(pointId);
  }

  /**
   * The zone: an action's own {@code zone} field, else the middle of a {@code domain.zone.id} point
   * path (seed 001: outputs use stable domain.zone.id paths).
   */
  private static String zone(String pointId, Map<String, String> fields) {
    if (fields.containsKey("zone")) {
      return fields.get("zone");
    }
    String[] parts = pointId.split("\\.");
    return parts.length >= 3 ? String.join(".", List.of(parts).subList(1, parts.length - 1)) : "";
  }
}
