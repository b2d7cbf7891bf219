package io.sentinel.passlog;

import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.Optional;

/**
 * One accepted sample as the log keeps it: the native value, its quality, where it came from (an
 * MQTT topic, a GPIO pin), the device's own timestamp if it sent one, and the instant the gateway
 * received it. Replay feeds the engine by {@code receivedAt}, exactly as the gateway did.
 */
public record Observation(
    String pointId,
    Value value,
    Quality quality,
    String source,
    Optional<Instant> observedAt,
    Instant receivedAt) {

  public static Observation of(Sample sample, String source) {
    return new Observation(
        sample.pointId(), sample.value(), sample.quality(), source, Optional.empty(), sample.at());
  }

  public Sample toSample() {
    return new Sample(pointId, value, quality, receivedAt);
  }
}
