package io.sentinel.gpio;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * An output de-energised by the adapter's own timer at its {@code pulse_max} (not at the end of a
 * pulse, nor by a command): the last line of defence acted, and the operator should know.
 *
 * @param energised how long the pin was energised, from when it was energised to the cut
 * @param asked how long, from when it was energised, what it was asked would have kept it on (the
 *     latest pulse's end); empty when it was held on with no end (a claim of {@code true})
 */
public record PulseCut(
    String pointId,
    int pin,
    Duration pulseMax,
    Duration energised,
    Optional<Duration> asked,
    Instant at) {
  /** The control event's kind. */
  public static final String KIND = "pulse-cut";

  public String message() {
    return pointId
        + " (pin "
        + pin
        + ") de-energised by the GPIO adapter at its pulse_max: pulse_max "
        + pulseMax.toMillis()
        + " ms, energised "
        + energised.toMillis()
        + " ms, asked "
        + asked.map(d -> d.toMillis() + " ms").orElse("to stay on");
  }
}
