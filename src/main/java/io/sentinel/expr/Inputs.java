package io.sentinel.expr;

import io.sentinel.point.PointState;
import io.sentinel.point.Quality;

/**
 * The current state of a rule's inputs, by slot: slot i is the i-th input given to {@link
 * ExpressionCompiler#compile}.
 */
@FunctionalInterface
public interface Inputs {
  PointState state(int slot);

  /** The number in {@code slot}, NaN when it holds none; an engine reads it without the state. */
  default double number(int slot) {
    return state(slot).value().number();
  }

  /** 1 when {@code slot} holds true, 0 when false, -1 when it holds no bool. */
  default int truth(int slot) {
    return state(slot).value().truth();
  }

  default Quality quality(int slot) {
    return state(slot).quality();
  }

  /**
   * The instant of the evaluation, for conditions that depend on when they are asked (a value that
   * changed in this very step). The engine passes its step's instant.
   */
  default java.time.Instant now() {
    return java.time.Instant.EPOCH;
  }
}
