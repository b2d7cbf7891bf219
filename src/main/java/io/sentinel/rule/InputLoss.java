package io.sentinel.rule;

import io.sentinel.point.Value;
import java.time.Duration;
import java.util.Objects;

/** What a rule does when its inputs no longer have the quality it requires. */
public sealed interface InputLoss {
  /** Withdraw the claims; the point falls through to the next band. */
  record Release() implements InputLoss {}

  /** Keep the claims without evaluating, for at most {@code max} (hold_max), then release. */
  record Hold(Duration max) implements InputLoss {
    public Hold {
      Objects.requireNonNull(max, "a hold needs its bound (hold_max)");
    }
  }

  /** Take a defensive position: claim {@code value} on every claimed point. */
  record Assert(Value value) implements InputLoss {}
}
