package io.sentinel.passlog;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A stretch of the log: the observations and the commands recorded between {@code from} and {@code
 * to} (an exported file may name its bounds in a header line; otherwise they are the first and last
 * instants in it).
 */
public record LogWindow(
    Optional<String> site,
    Optional<Instant> from,
    Optional<Instant> to,
    List<LoggedObservation> observations,
    List<CommandIntent> commands) {
  public LogWindow {
    observations = List.copyOf(observations);
    commands = List.copyOf(commands);
  }
}
