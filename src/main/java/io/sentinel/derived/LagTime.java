package io.sentinel.derived;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Core time that was not spent under ingest lag. Warmup deadlines and the staleness watchdog count
 * this time, so that a long drain neither expires a deadline nor ages a point whose samples are
 * still in the queue. The runtime reports lag per pass; the lag periods are kept so that the time
 * between any two instants can be measured, not only from start.
 */
public final class LagTime {
  private final List<Instant[]> lagged = new ArrayList<>();
  private Instant lagSince;
  private Instant clock;

  public LagTime(Instant start) {
    this.clock = start;
  }

  /** Moves time to {@code t} under the current lag state. */
  public void advance(Instant t) {
    if (t.isAfter(clock)) {
      clock = t;
    }
  }

  /** The instant time has been moved to. */
  public Instant now() {
    return clock;
  }

  public boolean lagging() {
    return lagSince != null;
  }

  /** Lag begins or ends at the current instant; true when it just ended. */
  public boolean setLagging(boolean lag) {
    if (lag && lagSince == null) {
      lagSince = clock;
    } else if (!lag && lagSince != null) {
      lagged.add(new Instant[] {lagSince, clock});
      lagSince = null;
      return true;
    }
    return false;
  }

  /**
   * Whether the time between two instants is all of it effective: no lag was ever recorded. The
   * watchdog then measures in epoch nanos, as {@link #effective} would.
   */
  public boolean neverLagged() {
    return lagSince == null && lagged.isEmpty();
  }

  /** The time between {@code from} and {@code to} that was not under lag. */
  public Duration effective(Instant from, Instant to) {
    if (!to.isAfter(from)) {
      return Duration.ZERO;
    }
    Duration d = Duration.between(from, to);
    for (Instant[] period : lagged) {
      d = d.minus(overlap(period[0], period[1], from, to));
    }
    if (lagSince != null) {
      d = d.minus(overlap(lagSince, to.isAfter(clock) ? to : clock, from, to));
    }
    return d.isNegative() ? Duration.ZERO : d;
  }

  /**
   * The wall instant at which {@code needed} of effective time since {@code from} will have passed,
   * if no lag begins meanwhile; empty while lagging (the time is not running).
   */
  public java.util.Optional<Instant> whenElapsed(Instant from, Duration needed, Instant now) {
    if (lagSince != null) {
      return java.util.Optional.empty();
    }
    Duration missing = needed.minus(effective(from, now));
    return java.util.Optional.of(missing.isNegative() ? now : now.plus(missing));
  }

  private static Duration overlap(Instant a0, Instant a1, Instant b0, Instant b1) {
    Instant s = a0.isAfter(b0) ? a0 : b0;
    Instant e = a1.isBefore(b1) ? a1 : b1;
    return e.isAfter(s) ? Duration.between(s, e) : Duration.ZERO;
  }
}
