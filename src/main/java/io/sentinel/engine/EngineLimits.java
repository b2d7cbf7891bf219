package io.sentinel.engine;

import java.time.Duration;

/**
 * The engine's protective limits (seed 000, "Loop and flap protection"). The defaults let a rule
 * follow inputs sampled ten times a second indefinitely, while a feedback loop that flips a claim
 * every second or two trips them within a minute.
 *
 * @param evaluationsPerRule past this many evaluations of one rule within {@code evaluationWindow}
 *     the rule is suspended
 * @param claimChangesPerPoint past this many claim changes on one point within {@code claimWindow}
 *     the point is flagged as flapping and its output is frozen (interlock claims excepted)
 */
public record EngineLimits(
    int evaluationsPerRule,
    Duration evaluationWindow,
    int claimChangesPerPoint,
    Duration claimWindow) {

  public static final EngineLimits DEFAULT =
      new EngineLimits(600, Duration.ofSeconds(10), 30, Duration.ofMinutes(1));

  public EngineLimits {
    if (evaluationsPerRule < 1 || claimChangesPerPoint < 1) {
      throw new IllegalArgumentException("limits must be at least 1");
    }
  }
}
