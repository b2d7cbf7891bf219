package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * The gateway's bound on MQTT messages held in memory (docs/runtime.md, "Overload"). A message is
 * held from its arrival until its pass is durable and it is acknowledged; the broker's window (the
 * Receive Maximum, 65,534) lets up to that many sit in the gateway, more than a 48 MB heap holds.
 * At {@code max} held the gateway stops reading from the broker, so that the broker keeps what
 * follows; it reads again once half of them are acknowledged. Nothing is dropped here and nothing
 * is acknowledged before it is durable: the broker holds the backlog and, past its own queue
 * limits, drops what its publishers send (its own count, {@code $SYS/broker/publish/messages/
 * dropped}). Said: {@code SEN-045}, the event {@code ingest-overloaded} and the self point {@code
 * ingest.overloaded}, then {@code SEN-046} and {@code ingest-overload-ended} after {@link #QUIET}
 * without a pause.
 */
public final class IntakeBound {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** Overloaded until this long has passed without a pause. */
  static final Duration QUIET = Duration.ofSeconds(5);

  private final long max;
  private final long resumeAt;
  private final LongSupplier held;
  private final Predicate<Boolean> pauseReading;
  private final BiConsumer<ControlEvent, SelfPoint> said;
  private final InstantSource clock;

  /** Volatile: {@link #check} reads it without the lock on every message. */
  private volatile boolean paused;

  private boolean overloaded;
  private long pauses;
  private long episodePauses;
  private long pausedSince;
  private long pausedNanos;
  private long episodePausedNanos;
  private Instant lastPause = Instant.MIN;
  private Instant episodeStart;

  /**
   * @param pauseReading stops ({@code true}) or resumes reading from the broker
   * @param said where the overload's event and self point go (the engine's context publishes them)
   */
  IntakeBound(
      long max,
      LongSupplier held,
      Predicate<Boolean> pauseReading,
      BiConsumer<ControlEvent, SelfPoint> said,
      InstantSource clock) {
    this.max = Math.max(2, max);
    this.resumeAt = this.max / 2;
    this.held = held;
    this.pauseReading = pauseReading;
    this.said = said;
    this.clock = clock;
  }

  /**
   * The default bound for this JVM's heap: a held message costs about 1 KB (the client's publish,
   * its topic and payload, the sample, its acknowledgement), and the intake takes at most an eighth
   * of the heap: 6,000 with the edge JVM's 48 MB, the whole window from a 512 MB heap on.
   */
  static long defaultMax(long maxHeapBytes) {
    return Math.max(500, Math.min(65_534, maxHeapBytes / 8 / 1024));
  }

  long max() {
    return max;
  }

  /**
   * After messages were taken or acknowledged (any thread, every message): pauses or resumes
   * reading. Takes the lock only when a bound is crossed, not once per message.
   */
  void check() {
    long h = held.getAsLong();
    if (paused ? h > resumeAt : h < max) {
      return;
    }
    transition();
  }

  private synchronized void transition() {
    long h = held.getAsLong();
    if (!paused && h >= max) {
      paused = true;
      pauses++;
      pausedSince = System.nanoTime();
      lastPause = clock.instant();
      pauseReading.test(true);
      if (!overloaded) {
        overloaded = true;
        episodeStart = lastPause;
        episodePauses = 0;
        episodePausedNanos = 0;
        LOG.warnf(
            "SEN-045 ingest overloaded: %d MQTT messages wait for their passes to be durable (the"
                + " bound, sentinel.ingest.max-held, is %d): the gateway stops reading from the"
                + " broker until half of them are acknowledged, and the broker holds what follows"
                + " (past its own queue limits it drops; event ingest-overloaded, self point"
                + " ingest.overloaded)",
            h, max);
        said.accept(
            new ControlEvent(
                "ingest-overloaded",
                "ingest",
                h
                    + " MQTT messages wait for the journal (bound "
                    + max
                    + "): reading from the broker paused until half are acknowledged; the broker"
                    + " holds the backlog",
                lastPause),
            new SelfPoint("ingest.overloaded", Value.of(true), lastPause));
      }
      episodePauses++;
    } else if (paused && h <= resumeAt) {
      paused = false;
      long took = System.nanoTime() - pausedSince;
      pausedNanos += took;
      episodePausedNanos += took;
      lastPause = clock.instant();
      pauseReading.test(false);
    }
  }

  /** Ends an overload after {@link #QUIET} without a pause (called every second). */
  synchronized void tick() {
    transition();
    Instant now = clock.instant();
    if (!overloaded || paused || now.isBefore(lastPause.plus(QUIET))) {
      return;
    }
    overloaded = false;
    LOG.infof(
        "SEN-046 ingest no longer overloaded: reading from the broker was paused %d times for %d"
            + " ms in all since %s",
        episodePauses, episodePausedNanos / 1_000_000, episodeStart);
    said.accept(
        new ControlEvent(
            "ingest-overload-ended",
            "ingest",
            "reading from the broker was paused "
                + episodePauses
                + " times for "
                + episodePausedNanos / 1_000_000
                + " ms in all since "
                + episodeStart,
            now),
        new SelfPoint("ingest.overloaded", Value.of(false), now));
  }

  public boolean paused() {
    return paused;
  }

  public synchronized long pauses() {
    return pauses;
  }

  /** Seconds reading has been paused in all (the pause under way included). */
  synchronized double pausedSeconds() {
    long n = pausedNanos + (paused ? System.nanoTime() - pausedSince : 0);
    return n / 1e9;
  }
}
