package io.sentinel.engine;

import java.time.Instant;

/**
 * Instants as epoch nanoseconds (a long, good until 2262): what per-rule and per-point history
 * keeps, so that recording an instant allocates nothing and stores no reference.
 */
final class EpochNanos {
  private static final long PER_SECOND = 1_000_000_000L;

  private EpochNanos() {}

  static long of(Instant t) {
    return t.getEpochSecond() * PER_SECOND + t.getNano();
  }

  static Instant instant(long nanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, PER_SECOND), Math.floorMod(nanos, PER_SECOND));
  }
}
