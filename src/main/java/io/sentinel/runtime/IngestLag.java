package io.sentinel.runtime;

import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether ingest lags, measured where the backlog is (docs/live.md): the drain of the broker's
 * queued backlog after a connect (until the backlog marker returns), a sample from that backlog, or
 * the age of the oldest sample a pass takes, by receipt or by the device time its arrival says it
 * waited upstream since ({@link io.sentinel.mqtt.LiveFacts#waitingSince}), over the threshold. One
 * pass at a time, on the engine's context: {@link #begin}, {@link #took} for each sample, {@link
 * #end}.
 */
final class IngestLag {
  private final Duration threshold;
  private final AtomicLong backlogSamples = new AtomicLong();
  private volatile boolean draining;
  private volatile Duration last = Duration.ZERO;
  private boolean lagging;
  private Instant oldest;
  private boolean backlog;
  private long fromBacklog;

  IngestLag(Duration threshold) {
    this.threshold = threshold;
  }

  void draining(boolean now) {
    draining = now;
  }

  boolean draining() {
    return draining;
  }

  long backlogSamples() {
    return backlogSamples.get();
  }

  /** The lag the last pass measured. */
  Duration last() {
    return last;
  }

  void begin() {
    oldest = null;
    backlog = draining;
    fromBacklog = 0;
  }

  void took(Observation o, Arrival arrival) {
    if (arrival.backlog()) {
      backlog = true;
      fromBacklog++;
    }
    Instant received = o.receivedAt();
    if (oldest == null || received.isBefore(oldest)) {
      oldest = received;
    }
    if (arrival.waitingSince().isPresent() && arrival.waitingSince().get().isBefore(oldest)) {
      oldest = arrival.waitingSince().get();
    }
  }

  /** Whether this pass runs under ingest lag. */
  boolean end(Instant now) {
    Duration lag = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
    last = lag.isNegative() ? Duration.ZERO : lag; // a device clock a little ahead (within skew)
    backlogSamples.addAndGet(fromBacklog);
    return backlog || last.compareTo(threshold) > 0;
  }

  /** The ingest-lagging or ingest-caught-up event and the self point, when the state changed. */
  PlaneOutput change(boolean lagNow, Instant now) {
    if (lagNow == lagging) {
      return PlaneOutput.NONE;
    }
    lagging = lagNow;
    String why =
        backlog
            ? "draining the broker's backlog (queued while the gateway was away; oldest sample "
                + last.toMillis()
                + " ms old)"
            : "oldest waiting sample is "
                + last.toMillis()
                + " ms old (threshold "
                + threshold.toMillis()
                + " ms)";
    return new PlaneOutput(
        List.of(
            new ControlEvent(
                lagNow ? "ingest-lagging" : "ingest-caught-up",
                "ingest",
                lagNow
                    ? why + ": warmup deadlines and staleness pause, no rule leaves warmup"
                    : "caught up: the backlog is drained and ingest lag is under "
                        + threshold.toMillis()
                        + " ms",
                now)),
        List.of(new SelfPoint("ingest.lagging", Value.of(lagNow), now)));
  }
}
