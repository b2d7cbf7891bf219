package io.sentinel.point;

import java.time.Instant;

/** What a point holds now: its value, that value's quality, and when either last changed. */
public record PointState(Value value, Quality quality, Instant since) {
  public static PointState unknown(Instant at) {
    return new PointState(Value.ABSENT, Quality.UNKNOWN, at);
  }
}
