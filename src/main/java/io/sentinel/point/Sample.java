package io.sentinel.point;

import java.time.Instant;

/**
 * One observation of a point, stamped with the instant the gateway received it. The engine orders
 * and times everything by {@code at}; a device's own timestamp is kept by the log, not trusted
 * here.
 */
public record Sample(String pointId, Value value, Quality quality, Instant at) {
  public static Sample live(String pointId, Value value, Instant at) {
    return new Sample(pointId, value, Quality.LIVE, at);
  }
}
