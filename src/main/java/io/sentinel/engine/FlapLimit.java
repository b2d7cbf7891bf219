package io.sentinel.engine;

import io.sentinel.point.Value;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The flap limit: a point whose claims change more than {@link EngineLimits#claimChangesPerPoint}
 * times within {@link EngineLimits#claimWindow} is frozen (its output held, interlock claims still
 * pass) until the changes fall back under the limit.
 */
final class FlapLimit {
  /** Recent claim changes of a point. */
  private static final class PointFlap {
    final ArrayList<Instant> changes = new ArrayList<>();
    boolean frozen;
  }

  private final Map<String, PointFlap> flaps = new HashMap<>();
  private final EngineLimits limits;
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
    this.timers = timers;
    this.out = out;
    this.settled = settled;
  }

  /** Counts a claim change of a point; freezes the point when it is one too many. */
  void count(ClaimChange change) {
    PointFlap flap = flaps.computeIfAbsent(change.pointId(), k -> new PointFlap());
    flap.changes.add(change.at());
    trim(flap, change.at());
    if (!flap.frozen && flap.changes.size() > limits.claimChangesPerPoint()) {
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
      timers.flapRecheck(flap.changes.get(0).plus(limits.claimWindow()), change.pointId());
    }
  }

  /** A recheck fell due: the point settles once its changes are back under the limit. */
  void recheck(String pointId, Instant t) {
    PointFlap flap = flaps.get(pointId);
    if (flap == null || !flap.frozen) {
      return;
    }
    trim(flap, t);
    if (flap.changes.size() > limits.claimChangesPerPoint()) {
      timers.flapRecheck(flap.changes.get(0).plus(limits.claimWindow()), pointId);
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

  boolean frozen(String pointId) {
    PointFlap flap = flaps.get(pointId);
    return flap != null && flap.frozen;
  }

  /** Keeps the previous engine's counts across a revision. */
  void takeOver(FlapLimit previous) {
    flaps.putAll(previous.flaps);
  }

  private void trim(PointFlap flap, Instant t) {
    Instant horizon = t.minus(limits.claimWindow());
    while (!flap.changes.isEmpty() && !flap.changes.get(0).isAfter(horizon)) {
      flap.changes.remove(0);
    }
  }
}
