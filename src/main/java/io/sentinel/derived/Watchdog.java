package io.sentinel.derived;

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
 */
final class Watchdog {
  private final PointTable points;
  private final LagTime lag;
  private final TimerHeap timers;

  /** Each point's pending check, if any. */
  private final Instant[] due;

  /** Whether a point has stale_after or unavailable_after (the watchdog ignores the others). */
  private final boolean[] watched;

  Watchdog(PointTable points, LagTime lag, TimerHeap timers) {
    this.points = points;
    this.lag = lag;
    this.timers = timers;
    due = new Instant[points.size()];
    watched = new boolean[points.size()];
    for (int p = 0; p < points.size(); p++) {
      PointSpec spec = points.spec(p);
      watched[p] = spec.staleAfter().isPresent() || spec.unavailableAfter().isPresent();
    }
  }

  /** The point a timer of the shared heap checks, for a target below 0. */
  static int pointOf(int target) {
    return -1 - target;
  }

  /** Whether {@code at} is still point {@code p}'s pending check (a moved one leaves an entry). */
  boolean live(Instant at, int p) {
    return at.equals(due[p]);
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
   * One timer is pending per point: a later sample leaves an earlier timer in place (it re-checks
   * and moves on), but a change that makes the point age sooner (stale to live) brings the timer
   * forward.
   */
  void schedule(int p, Instant t) {
    if (!watched[p]) {
      return;
    }
    PointSpec spec = points.spec(p);
    Optional<Instant> last = points.lastSampleAt(p);
    if (spec.staleAfter().isEmpty() && spec.unavailableAfter().isEmpty() || last.isEmpty()) {
      return;
    }
    Quality q = points.state(p).quality();
    Optional<Duration> next =
        q == Quality.LIVE && spec.staleAfter().isPresent()
            ? spec.staleAfter()
            : q == Quality.LIVE || q == Quality.STALE ? spec.unavailableAfter() : Optional.empty();
    next.flatMap(d -> lag.whenElapsed(last.get(), d, t))
        .filter(at -> due[p] == null || at.isBefore(due[p]))
        .ifPresent(
            at -> {
              due[p] = at;
              timers.add(at, -1 - p);
            });
  }

  /** Point {@code p} aged at {@code t}: the transition to stale or unavailable, if it is due. */
  Optional<Transition> age(int p, Instant t) {
    PointSpec spec = points.spec(p);
    Optional<Instant> last = points.lastSampleAt(p);
    if (last.isEmpty()) {
      return Optional.empty();
    }
    Duration quiet = lag.effective(last.get(), t);
    Quality q = points.state(p).quality();
    Quality next = q;
    if ((q == Quality.LIVE || q == Quality.STALE)
        && spec.unavailableAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent()) {
      next = Quality.UNAVAILABLE;
    } else if (q == Quality.LIVE
        && spec.staleAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent()) {
      next = Quality.STALE;
    }
    return next == q ? Optional.empty() : points.degrade(p, next, t);
  }
}
