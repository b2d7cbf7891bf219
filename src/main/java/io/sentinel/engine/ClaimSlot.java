package io.sentinel.engine;

import io.sentinel.arbitration.Arbiter;
import io.sentinel.arbitration.Decision;
import io.sentinel.point.Value;

/**
 * What the claim book keeps of one claimed point, made on first use: its arbiter table (from the
 * first claim asserted on it), the last decision that left arbitration, and whether its claims
 * changed since arbitration last settled. Rules keep the slots of the points they claim, so that
 * the hot path hashes no point id.
 */
final class ClaimSlot {
  final String pointId;
  private final Arbiter arbiter;
  private Arbiter.Table table;
  Decision last;

  /** Of {@link #last}: its winner's rule and its value (null for none), read without it. */
  String lastRule;

  Value lastValue;

  boolean changed;

  /** The table's version when {@link #last} was decided from it (-1: not from this table). */
  int decidedVersion = -1;

  /** The point's recent claim changes (the flap limit's), got on first use. */
  FlapLimit.PointFlap flap;

  ClaimSlot(String pointId, Arbiter arbiter) {
    this.pointId = pointId;
    this.arbiter = arbiter;
  }

  void decided(Decision d) {
    last = d;
    lastRule = d.winner().isPresent() ? d.winner().get().ruleId() : null;
    lastValue = d.value().orElse(null);
  }

  /**
   * {@code last.sameOutcome(d)}, from {@link #lastRule} and {@link #lastValue}: what a settle
   * compares, read from this object rather than from the last decision's optionals.
   */
  boolean sameOutcome(Decision d) {
    Value value = d.value().orElse(null);
    String rule = d.winner().isPresent() ? d.winner().get().ruleId() : null;
    return java.util.Objects.equals(lastValue, value) && java.util.Objects.equals(lastRule, rule);
  }

  /** The point's arbiter table, made now if no claim was asserted on it yet. */
  Arbiter.Table table() {
    if (table == null) {
      table = arbiter.table(pointId);
    }
    return table;
  }

  /** The point's arbiter table if a claim was ever asserted on it, else null. */
  Arbiter.Table existing() {
    if (table == null) {
      table = arbiter.find(pointId);
    }
    return table;
  }
}
