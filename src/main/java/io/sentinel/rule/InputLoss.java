package io.sentinel.rule;

import io.sentinel.point.Value;

/** What a rule does when its inputs no longer have the quality it requires. */
public sealed interface InputLoss {
  /** Withdraw the claims; the point falls through to the next band. */
  record Release() implements InputLoss {}

  /** Keep the claims without evaluating, for at most the rule's hold_max, then release. */
  record Hold() implements InputLoss {}

  /** Take a defensive position: claim {@code value} on every claimed point. */
  record Assert(Value value) implements InputLoss {}
}
