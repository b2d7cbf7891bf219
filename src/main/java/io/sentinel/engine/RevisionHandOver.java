package io.sentinel.engine;

import io.sentinel.arbitration.Claim;
import io.sentinel.point.PointTable;
import io.sentinel.rule.RuleChanges;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** An activation: the engine for a new rule set takes over what the running one may keep. */
final class RevisionHandOver {
  private RevisionHandOver() {}

  /** See {@link Engine#activate}. */
  static Engine.Activation activate(Engine prev, RuleSet next) {
    Instant at = prev.clock;
    Map<String, String> derivedBefore = new HashMap<>();
    prev.ruleSet.derived().ordered().forEach(d -> derivedBefore.put(d.id(), d.definitionHash()));
    Map<String, String> derivedAfter = new HashMap<>();
    next.derived().ordered().forEach(d -> derivedAfter.put(d.id(), d.definitionHash()));
    PointTable table = new PointTable(next.registry(), at);
    table.takeOver(
        prev.points,
        id ->
            prev.specOf(id).sameDefinition(next.registry().find(id).orElseThrow())
                && Objects.equals(derivedBefore.get(id), derivedAfter.get(id)));
    Engine e = new Engine(next, table, prev.lagTime, prev.start, at, prev.limits);
    e.derived.restore(prev.derived.snapshot());
    RuleChanges changes = RuleChanges.between(prev.ruleSet, next);
    takeOver(e, prev, at);
    return new Engine.Activation(e, changes, e.out.take());
  }

  private static void takeOver(Engine e, Engine prev, Instant at) {
    e.timers.continueFrom(prev.timers);
    e.activated = prev.activated;
    e.claims.takeOver(prev.claims);
    e.flaps.takeOver(prev.flaps);
    Map<Integer, Integer> carriedIndex = new HashMap<>();
    e.generations.putAll(prev.generations);
    for (RuleRuntime o : prev.rules) {
      e.generations.merge(o.rule.id(), o.generation, Math::max);
    }
    for (RuleRuntime r : e.rules) {
      RuleRuntime o = prev.byId.get(r.rule.id());
      if (o != null && o.rule.definitionHash().equals(r.rule.definitionHash())) {
        r.takeOver(o);
        carriedIndex.put(o.index, r.index);
      } else {
        // A changed (or removed and re-added) rule starts afresh in a new generation of ids.
        r.generation = e.generations.getOrDefault(r.rule.id(), 0L) + 1;
      }
    }
    Set<String> carried = new HashSet<>();
    carriedIndex.values().forEach(i -> carried.add(e.rules[i].rule.id()));
    // Claims kept as they were asserted: their freshness and matched count decide as before.
    for (Claim c : prev.claims.claims()) {
      if (carried.contains(c.ruleId())) {
        e.claims.assertClaim(c);
      } else if (c.ruleId().equals(OperatorOverride.RULE_ID)) {
        e.operator.keep(prev.operator, c, at);
      }
    }
    for (RuleRuntime o : prev.rules) {
      if (carried.contains(o.rule.id())) {
        continue;
      }
      String reason =
          e.byId.containsKey(o.rule.id())
              ? "rule changed by a revision: state reset"
              : "rule removed by a revision";
      for (String point : o.held.keySet()) {
        e.claims.changed(
            new ClaimChange(o.rule.id(), point, o.rule.band(), Optional.empty(), at, reason));
      }
    }
    e.timers.carry(prev.timers, carriedIndex);
    e.operator.keepResumes(prev.operator, e.byId.keySet());
    e.triggers.clear();
    for (RuleRuntime r : e.rules) {
      if (!carried.contains(r.rule.id())) {
        r.warmupFrom = at;
        e.policy.begin(r, at, "fail-safe from activation");
        e.triggers.touch(r.index, Triggers.ACTIVATION);
      } else if (r.state == RuleState.DISABLED && r.rule.enabled()) {
        e.policy.enable(r, at);
        e.triggers.touch(r.index, Triggers.ACTIVATION);
      } else if (r.state != RuleState.DISABLED && !r.rule.enabled()) {
        e.policy.disable(r, at);
      }
    }
    if (e.activated) {
      int count = e.triggers.sortTouched();
      for (int k = 0; k < count; k++) {
        int idx = e.triggers.touched(k);
        int flags = e.triggers.takeFlags(idx);
        RuleRuntime r = e.rules[idx];
        e.policy.startInterval(r, at);
        e.policy.visit(r, at, flags);
      }
    } else {
      e.triggers.forget();
    }
    e.triggers.clear();
    e.claims.settle(at);
  }
}
