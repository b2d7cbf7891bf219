package io.sentinel.rule;

import java.time.Duration;

/** When a rule leaves warmup after the core starts; it does not evaluate before. */
public sealed interface Warmup {
  /** Every input has been live at least once since core start. */
  record AllInputsLive() implements Warmup {}

  /** Every input is live or stale: neither unknown nor restored (nor unavailable or bad). */
  record AllInputsKnown() implements Warmup {}

  /**
   * As all_inputs_live, but at most {@code cap} of core time that is not spent under ingest lag; on
   * expiry the rule evaluates under its input-loss policy.
   */
  record Deadline(Duration cap) implements Warmup {}
}
