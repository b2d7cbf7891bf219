package io.sentinel.engine;

import io.sentinel.expr.Inputs;
import io.sentinel.point.PointState;
import java.time.Instant;

/**
 * A rule's inputs as its conditions read them in one evaluation: the rule's input slots and the
 * step's instant. The engine keeps one and aims it at each rule it evaluates, so that an evaluation
 * stores nothing into the rule's own record.
 */
final class RuleInputs implements Inputs {
  private RuleRuntime rule;
  private Instant now = Instant.EPOCH;

  /** Aims this at {@code r}'s inputs for an evaluation at {@code t}. */
  RuleInputs of(RuleRuntime r, Instant t) {
    rule = r;
    now = t;
    return this;
  }

  @Override
  public PointState state(int slot) {
    return rule.state(slot);
  }

  @Override
  public Instant now() {
    return now;
  }
}
