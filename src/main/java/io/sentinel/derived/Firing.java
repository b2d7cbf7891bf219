package io.sentinel.derived;

import java.time.Instant;

/**
 * A firing of a pattern point (count, sequence, absence, dedupe, throttle). The id is the point,
 * the generation of its state and the firing's sequence in it: replaying a log gives the same ids,
 * and a reset (a changed definition) starts a new generation, so no id is ever reused.
 */
public record Firing(String id, String pointId, long generation, long seq, Instant at) {
  static Firing of(String pointId, long generation, long seq, Instant at) {
    return new Firing(pointId + "/" + generation + "/" + seq, pointId, generation, seq, at);
  }
}
