package io.sentinel.passlog;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A stretch of the log: the observations and the commands recorded between {@code from} and {@code
 * to} (an exported file may name its bounds in a header line; otherwise they are the first and last
 * instants in it), the claim changes, and what else happened to the engine ({@link Timeline}; read
 * from the database, empty for an exported file).
 */
public record LogWindow(
    Optional<String> site,
    Optional<Instant> from,
    Optional<Instant> to,
    List<LoggedObservation> observations,
    List<CommandIntent> commands,
    List<ClaimRecord> claims,
    Optional<Timeline> timeline) {
  public LogWindow {
    observations = List.copyOf(observations);
    commands = List.copyOf(commands);
    claims = List.copyOf(claims);
  }

  /** A window of observations and commands only (an exported file). */
  public LogWindow(
      Optional<String> site,
      Optional<Instant> from,
      Optional<Instant> to,
      List<LoggedObservation> observations,
      List<CommandIntent> commands) {
    this(site, from, to, observations, commands, List.of(), Optional.empty());
  }
}
