package io.sentinel.engine;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a restart takes back, the one definition the gateway (read from the store) and the fixture
 * runner (taken from the engine it stops) share: each point's last value (restored with quality
 * {@code restored}, which no rule counts as live), the derived points' last state, the DSL's
 * latches that had not been released, the operator overrides in force and each action's last firing
 * (its cooldown).
 */
public record RestartState(
    List<PointValue> values,
    Optional<String> derivedSnapshot,
    Set<String> latchedRules,
    List<OperatorOverride> overrides,
    List<Cooldown> cooldowns) {

  public RestartState {
    values = List.copyOf(values);
    latchedRules = Set.copyOf(latchedRules);
    overrides = List.copyOf(overrides);
    cooldowns = List.copyOf(cooldowns);
  }

  /** Nothing to restore (a first start, or PostgreSQL away with an empty journal). */
  public static final RestartState NONE =
      new RestartState(List.of(), Optional.empty(), Set.of(), List.of(), List.of());

  public record PointValue(String pointId, Value value, Instant since) {}

  public record Cooldown(String ruleId, int actionIndex, Instant lastFired) {}

  /** What the log holds of a running engine at its clock: what its restart would take back. */
  public static RestartState of(Engine running) {
    List<PointValue> values = new ArrayList<>();
    for (String id : running.ruleSet().registry().points().keySet()) {
      running
          .points()
          .state(id)
          .filter(s -> s.value().isPresent())
          .ifPresent(s -> values.add(new PointValue(id, s.value(), s.since())));
    }
    return new RestartState(
        values,
        Optional.of(running.derivedSnapshot()),
        running.latchedRules(),
        List.copyOf(running.operator.inForceInOrder()),
        cooldowns(running));
  }

  /** When each action last fired, as {@link Engine#restoreCooldown} takes it back. */
  private static List<Cooldown> cooldowns(Engine running) {
    List<Cooldown> list = new ArrayList<>();
    for (RuleRuntime r : running.rules) {
      for (int a = 0; a < r.actionLastFired.length; a++) {
        if (r.actionLastFired[a] != null) {
          list.add(new Cooldown(r.rule.id(), a, r.actionLastFired[a]));
        }
      }
    }
    return list;
  }

  /**
   * Puts this state into a new engine, before its first pass. A value whose point is gone from the
   * registry, or whose type changed, is left out; so is a latch, override or cooldown that no
   * longer fits. Each is named in the returned notes.
   */
  public List<String> applyTo(Engine engine) {
    List<String> notes = new ArrayList<>();
    for (PointValue pv : values) {
      int i = engine.points().indexOf(pv.pointId());
      if (i < 0) {
        notes.add("point " + pv.pointId() + " is no longer in the registry: not restored");
        continue;
      }
      PointSpec spec = engine.points().spec(i);
      if (!pv.value().isPresent() || !spec.type().accepts(pv.value())) {
        notes.add("point " + pv.pointId() + ": " + pv.value() + " is not a " + spec.type().name());
        continue;
      }
      engine.points().restore(pv.pointId(), pv.value(), pv.since());
    }
    derivedSnapshot.ifPresent(engine::restoreDerived);
    engine.restoreLatches(new TreeSet<>(latchedRules));
    notes.addAll(engine.restoreOverrides(overrides));
    Set<String> latchedNow = engine.latchedRules();
    for (String id : new TreeSet<>(latchedRules)) {
      if (!latchedNow.contains(id)) {
        notes.add("rule " + id + " no longer latches (gone, disabled or no hold_until): released");
      }
    }
    for (Cooldown c : cooldowns) {
      if (!engine.restoreCooldown(c.ruleId(), c.actionIndex(), c.lastFired())) {
        notes.add(
            "action " + c.ruleId() + "/" + c.actionIndex() + " no longer exists: cooldown dropped");
      }
    }
    return notes;
  }
}
