package io.sentinel.derived;

import io.sentinel.point.EpochNanos;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Transition;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The staleness watchdog of the {@link DerivedLayer}: a point not sampled for its {@code
 * stale_after} (of lag-free time) turns stale, for its {@code unavailable_after} unavailable. Its
 * timers share the layer's heap, a point's target being {@code -1 - p} (the derived points' are 0
 * and up). It keeps no state a restart would need: it is rebuilt from the points' last samples.
 *
 * <p>A watched point's check falls due about once per sample (a sample moves the point's ageing
 * past the pending check, which re-checks and moves on), so a check is worked out in epoch nanos
 * while no lag was ever recorded and every instant is within them ({@link #nanos}); otherwise, and
 * in the same terms, with {@link LagTime}'s instants and durations.
 */
final class Watchdog {
  /** A duration the nanos path does not take (none, or too long for it: the instant path does). */
  private static final long NONE = -1;

  /** The longest duration the nanos path takes: a century, so that no sum of nanos overflows. */
  private static final long LONGEST = Duration.ofDays(36_525).toNanos();

  private final PointTable points;
  private final LagTime lag;
  private final TimerHeap timers;

  /** Each point's pending check, if any. */
  private final Instant[] due;

  /** Whether a point has stale_after or unavailable_after (the watchdog ignores the others). */
  private final boolean[] watched;

  /** Each point's stale_after and unavailable_after in nanos, {@link #NONE} if it has none. */
  private final long[] staleNanos;

  private final long[] unavailableNanos;

  /** Whether the point's durations are all within {@link #LONGEST}: its checks may take nanos. */
  private final boolean[] fits;

  Watchdog(PointTable points, LagTime lag, TimerHeap timers) {
    this.points = points;
    this.lag = lag;
    this.timers = timers;
    due = new Instant[points.size()];
    watched = new boolean[points.size()];
    staleNanos = new long[points.size()];
    unavailableNanos = new long[points.size()];
    fits = new boolean[points.size()];
    for (int p = 0; p < points.size(); p++) {
      PointSpec spec = points.spec(p);
      watched[p] = spec.staleAfter().isPresent() || spec.unavailableAfter().isPresent();
      staleNanos[p] = nanosOf(spec.staleAfter());
      unavailableNanos[p] = nanosOf(spec.unavailableAfter());
      fits[p] =
          (staleNanos[p] != NONE || spec.staleAfter().isEmpty())
              && (unavailableNanos[p] != NONE || spec.unavailableAfter().isEmpty());
    }
  }

  private static long nanosOf(Optional<Duration> d) {
    return d.filter(x -> !x.isNegative() && x.compareTo(Duration.ofNanos(LONGEST)) <= 0)
        .map(Duration::toNanos)
        .orElse(NONE);
  }

  /** The point a timer of the shared heap checks, for a target below 0. */
  static int pointOf(int target) {
    return -1 - target;
  }

  /**
   * Whether the instant {@code second}, {@code nano} is still point {@code p}'s pending check (a
   * moved one leaves an entry).
   */
  boolean live(long second, int nano, int p) {
    Instant pending = due[p];
    return pending != null && pending.getEpochSecond() == second && pending.getNano() == nano;
  }

  /** Point {@code p}'s pending check, or null. */
  Instant due(int p) {
    return due[p];
  }

  boolean pending(int p) {
    return due[p] != null;
  }

  /** Point {@code p}'s check fell due: it is no longer pending. */
  void fired(int p) {
    due[p] = null;
  }

  /** Lag ended: every watched point's due instant moves by the time lag held it back. */
  void lagEnded(Instant t) {
    for (int p = 0; p < due.length; p++) {
      due[p] = null;
      schedule(p, t);
    }
  }

  /**
   * Whether point {@code p}'s check at {@code t} can be worked out in nanos: no lag ever, the
   * point's durations within {@link #LONGEST} (or absent), its last sample and {@code t} exact and
   * after 1970, so that no difference or sum of them overflows.
   */
  private boolean nanos(int p, long last, long t) {
    return fits[p]
        && lag.neverLagged()
        && last >= 0
        && t >= 0
        && EpochNanos.exact(last)
        && EpochNanos.exact(t);
  }

  /**
   * One timer is pending per point: a later sample leaves an earlier timer in place (it re-checks
   * and moves on), but a change that makes the point age sooner (stale to live) brings the timer
   * forward.
   */
  void schedule(int p, Instant t) {
    if (!watched[p]) {
      return;
    }
    long last = points.lastSampleNanos(p);
    if (last == PointTable.NO_SAMPLE) {
      return;
    }
    Quality q = points.quality(p);
    long now = EpochNanos.of(t);
    if (nanos(p, last, now)) {
      long next =
          q == Quality.LIVE && staleNanos[p] != NONE
              ? staleNanos[p]
              : q == Quality.LIVE || q == Quality.STALE ? unavailableNanos[p] : NONE;
      if (next == NONE) {
        return;
      }
      // LagTime.whenElapsed without lag: what is missing of the duration, from now.
      long missing = next - (now > last ? now - last : 0);
      long at = missing < 0 ? now : now + missing;
      if (due[p] == null || at < EpochNanos.of(due[p])) {
        due[p] = EpochNanos.instant(at);
        timers.add(due[p], -1 - p);
      }
      return;
    }
    PointSpec spec = points.spec(p);
    Instant lastAt = points.lastSampleAt(p).orElseThrow();
    Optional<Duration> next =
        q == Quality.LIVE && spec.staleAfter().isPresent()
            ? spec.staleAfter()
            : q == Quality.LIVE || q == Quality.STALE ? spec.unavailableAfter() : Optional.empty();
    next.flatMap(d -> lag.whenElapsed(lastAt, d, t))
        .filter(at -> due[p] == null || at.isBefore(due[p]))
        .ifPresent(
            at -> {
              due[p] = at;
              timers.add(at, -1 - p);
            });
  }

  /** Point {@code p} aged at {@code t}: the transition to stale or unavailable, if it is due. */
  Optional<Transition> age(int p, Instant t) {
    long last = points.lastSampleNanos(p);
    if (last == PointTable.NO_SAMPLE) {
      return Optional.empty();
    }
    Quality q = points.quality(p);
    boolean unavailable;
    boolean stale;
    long now = EpochNanos.of(t);
    if (nanos(p, last, now)) {
      long quiet = now > last ? now - last : 0;
      unavailable = unavailableNanos[p] != NONE && quiet >= unavailableNanos[p];
      stale = staleNanos[p] != NONE && quiet >= staleNanos[p];
    } else {
      PointSpec spec = points.spec(p);
      Duration quiet = lag.effective(points.lastSampleAt(p).orElseThrow(), t);
      unavailable = spec.unavailableAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent();
      stale = spec.staleAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent();
    }
    Quality next = q;
    if ((q == Quality.LIVE || q == Quality.STALE) && unavailable) {
      next = Quality.UNAVAILABLE;
    } else if (q == Quality.LIVE && stale) {
      next = Quality.STALE;
    }
    return next == q ? Optional.empty() : points.degrade(p, next, t);
  }
}
