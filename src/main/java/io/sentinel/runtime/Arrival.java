package io.sentinel.runtime;

import java.time.Instant;
import java.util.Optional;

/**
 * How a message arrived (docs/live.md): from the broker's queued {@code backlog}; {@code
 * waitingSince}, the device time from which its wait upstream is measured, when it says.
 */
public record Arrival(boolean backlog, Optional<Instant> waitingSince) {
  public static final Arrival NOW = new Arrival(false, Optional.empty());
}
