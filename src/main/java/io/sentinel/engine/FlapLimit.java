package io.sentinel.engine;

import io.sentinel.point.EpochNanos;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The flap limit: a point whose claims change more than {@link EngineLimits#claimChangesPerPoint}
 * times within {@link EngineLimits#claimWindow} is frozen (its output held, interlock claims still
 * pass) until the changes fall back under the limit.
 */
final class FlapLimit {
  /**
   * Recent claim changes of a point: their instants as epoch nanos in a ring, oldest at {@code
   * head}, grown when full. Primitives, so that counting a change allocates nothing and stores no
   * reference into this long-lived object.
   */
  static final class PointFlap {
    long[] changes = new long[4];
    int head;
    int size;
    boolean frozen;

    void add(long at) {
      if (size == changes.length) {
        long[] grown = new long[2 * size];
        System.arraycopy(changes, head, grown, 0, size - head);
        System.arraycopy(changes, 0, grown, size - head, head);
        changes = grown;
        head = 0;
      }
      changes[(head + size) % changes.length] = at;
      size++;
    }

    long oldest() {
      return changes[head];
    }

    /** Drops the changes at or before {@code horizon}. */
    void trim(long horizon) {
      while (size > 0 && changes[head] <= horizon) {
        head = head + 1 == changes.length ? 0 : head + 1;
        size--;
      }
    }
  }

  private final Map<String, PointFlap> flaps = new HashMap<>();
  private final EngineLimits limits;
  private final long windowNanos;
  private final Timers timers;
  private final PassOutputs out;

  /** Told of a point that settled, so that arbitration decides it again (the claim book). */
  private final java.util.function.Consumer<String> settled;

  FlapLimit(
      EngineLimits limits,
      Timers timers,
      PassOutputs out,
      java.util.function.Consumer<String> settled) {
    this.limits = limits;
    this.windowNanos = limits.claimWindow().toNanos();
    this.timers = timers;
    this.out = out;
    this.settled = settled;
  }

  /** A point's recent changes, made on first use and the same object ever after. */
  PointFlap of(String pointId) {
    return flaps.computeIfAbsent(pointId, k -> new PointFlap());
  }

  /**
   * Counts a claim change of a point ({@code flap} is {@link #of} its point: the claim book keeps
   * it with the point's slot); freezes the point when it is one too many.
   */
  void count(PointFlap flap, ClaimChange change) {
    long at = EpochNanos.of(change.at());
    flap.add(at);
    flap.trim(at - windowNanos);
    if (!flap.frozen && flap.size > limits.claimChangesPerPoint()) {
      flap.frozen = true;
      out.event(
          "point-flapping",
          change.pointId(),
          "more than "
              + limits.claimChangesPerPoint()
              + " claim changes within "
              + limits.claimWindow()
              + "; output held (interlock claims still pass)",
          change.at());
      out.selfPoints.add(
          new SelfPoint("point." + change.pointId() + ".flapping", Value.TRUE, change.at()));
      timers.flapRecheck(EpochNanos.instant(flap.oldest() + windowNanos), change.pointId());
    }
  }

  /** A recheck fell due: the point settles once its changes are back under the limit. */
  void recheck(String pointId, Instant t) {
    PointFlap flap = flaps.get(pointId);
    if (flap == null || !flap.frozen) {
      return;
    }
    flap.trim(EpochNanos.of(t) - windowNanos);
    if (flap.size > limits.claimChangesPerPoint()) {
      timers.flapRecheck(EpochNanos.instant(flap.oldest() + windowNanos), pointId);
      return;
    }
    flap.frozen = false;
    out.event(
        "point-settled",
        pointId,
        "claim changes back under the limit; output follows arbitration again",
        t);
    out.selfPoints.add(new SelfPoint("point." + pointId + ".flapping", Value.FALSE, t));
    settled.accept(pointId);
  }

  /** Keeps the previous engine's counts across a revision. */
  void takeOver(FlapLimit previous) {
    flaps.putAll(previous.flaps);
  }
}
