package io.sentinel.expr;

import io.sentinel.point.PointState;

/**
 * The current state of a rule's inputs, by slot: slot i is the i-th input given to {@link
 * ExpressionCompiler#compile}.
 */
@FunctionalInterface
public interface Inputs {
  PointState state(int slot);
}
