package io.sentinel.expr;

import io.sentinel.point.PointState;

/**
 * The current state of a rule's inputs, by slot: slot i is the i-th input given to {@link
 * ExpressionCompiler#compile}.
 */
@FunctionalInterface
public interface Inputs {
  PointState state(int slot);

  /**
   * The instant of the evaluation, for conditions that depend on when they are asked (a value that
   * changed in this very step). The engine passes its step's instant.
   */
  default java.time.Instant now() {
    return java.time.Instant.EPOCH;
  }
}
