package io.sentinel.point;

import java.time.Instant;
import java.util.Objects;

/**
 * One observation of a point, stamped with the instant the gateway received it. The engine orders
 * and times everything by {@code at}; a device's own timestamp is kept by the log, not trusted
 * here.
 *
 * @param position where the decoder found the point in its registry ({@link Registry#inOrder}), or
 *     -1: a hint, checked by the point table against the id, so that the engine's hot path finds
 *     the point without hashing its id (a stale hint, after a revision, costs only the lookup). Not
 *     part of the observation: two samples that differ in it alone are equal.
 */
public record Sample(String pointId, Value value, Quality quality, Instant at, int position) {
  public Sample(String pointId, Value value, Quality quality, Instant at) {
    this(pointId, value, quality, at, -1);
  }

  public static Sample live(String pointId, Value value, Instant at) {
    return new Sample(pointId, value, Quality.LIVE, at);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Sample s
        && pointId.equals(s.pointId)
        && value.equals(s.value)
        && quality == s.quality
        && at.equals(s.at);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pointId, value, quality, at);
  }
}
