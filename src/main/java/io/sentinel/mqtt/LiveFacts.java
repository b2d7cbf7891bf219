package io.sentinel.mqtt;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a decoded message is worth to the engine (docs/live.md): a retained delivery is a known
 * value, not a live reading (it enters as {@code restored}); a device timestamp older than the
 * point's {@code stale_after} on arrival makes the sample {@code stale}; one further ahead of the
 * gateway's clock than {@code maxFutureSkew} is rejected with a counted reason. Ordering stays by
 * receipt: the sample keeps the instant the gateway received it.
 */
public final class LiveFacts {
  private final Registry registry;
  private final Duration maxFutureSkew;

  public LiveFacts(Registry registry, Duration maxFutureSkew) {
    this.registry = registry;
    this.maxFutureSkew = maxFutureSkew;
  }

  /** {@code decoded} (received at {@code at} on {@code topic}) as the engine is to take it. */
  public IngestDecoder.Decoded apply(
      String topic, IngestDecoder.Decoded decoded, MqttConnection.Delivery delivery, Instant at) {
    Optional<Instant> deviceTime = decoded.deviceTime();
    if (deviceTime.isPresent() && deviceTime.get().isAfter(at.plus(maxFutureSkew))) {
      List<IngestDecoder.Rejection> rejections = new ArrayList<>(decoded.rejections());
      Duration ahead = Duration.between(at, deviceTime.get());
      for (Sample s : decoded.samples()) {
        rejections.add(
            new IngestDecoder.Rejection(
                RejectReason.FUTURE_TIMESTAMP,
                topic,
                Optional.of(s.pointId()),
                "device timestamp "
                    + deviceTime.get()
                    + " is "
                    + ahead.toSeconds()
                    + " s ahead of the gateway's clock (sentinel.ingest.max-future-skew is "
                    + maxFutureSkew
                    + ")"));
      }
      return new IngestDecoder.Decoded(List.of(), rejections, deviceTime);
    }
    if (!delivery.retained() && deviceTime.isEmpty()) {
      return decoded;
    }
    List<Sample> samples = new ArrayList<>(decoded.samples().size());
    for (Sample s : decoded.samples()) {
      samples.add(
          new Sample(
              s.pointId(), s.value(), quality(s, delivery, deviceTime, at), s.at(), s.position()));
    }
    return new IngestDecoder.Decoded(samples, decoded.rejections(), deviceTime);
  }

  /**
   * The device time from which a taken message's wait upstream is measured (docs/live.md, "Lag
   * where the backlog is"): its device timestamp, when every sample entered live and each point has
   * a {@code stale_after}. A point's {@code stale_after} bounds how old a live reading may be, so a
   * device whose clock is far off turns its point stale (visible) instead of holding the gateway in
   * lag; a point without one says nothing of how long a reading may wait.
   */
  public Optional<Instant> waitingSince(IngestDecoder.Decoded taken) {
    if (taken.deviceTime().isEmpty() || taken.samples().isEmpty()) {
      return Optional.empty();
    }
    for (Sample s : taken.samples()) {
      if (s.quality() != Quality.LIVE
          || registry.find(s.pointId()).flatMap(PointSpec::staleAfter).isEmpty()) {
        return Optional.empty();
      }
    }
    return taken.deviceTime();
  }

  private Quality quality(
      Sample s, MqttConnection.Delivery delivery, Optional<Instant> deviceTime, Instant at) {
    if (s.quality() != Quality.LIVE) {
      return s.quality(); // what the device said of its own reading stands
    }
    if (delivery.retained()) {
      return Quality.RESTORED;
    }
    Optional<Duration> staleAfter = registry.find(s.pointId()).flatMap(PointSpec::staleAfter);
    if (deviceTime.isPresent()
        && staleAfter.isPresent()
        && Duration.between(deviceTime.get(), at).compareTo(staleAfter.get()) > 0) {
      return Quality.STALE;
    }
    return Quality.LIVE;
  }
}
