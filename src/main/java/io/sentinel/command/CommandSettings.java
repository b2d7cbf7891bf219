package io.sentinel.command;

import java.time.Duration;

/**
 * The command plane's bounds.
 *
 * @param interlockBound an interlock-band command not delivered within this is escalated ({@code
 *     interlock-unenforced})
 * @param convergenceBound the feedback of an {@code inout} point must reach a delivered command's
 *     value within this, or {@code command-not-converged} is reported
 */
public record CommandSettings(Duration interlockBound, Duration convergenceBound) {
  public static final CommandSettings DEFAULT =
      new CommandSettings(Duration.ofSeconds(5), Duration.ofSeconds(30));

  public CommandSettings {
    if (interlockBound.isNegative() || interlockBound.isZero()) {
      throw new IllegalArgumentException("interlock bound must be above zero");
    }
    if (convergenceBound.isNegative() || convergenceBound.isZero()) {
      throw new IllegalArgumentException("convergence bound must be above zero");
    }
  }
}
