package io.sentinel.point;

import java.time.Instant;

/**
 * Instants as epoch nanoseconds (a long, good until 2262): what per-rule and per-point history
 * keeps, so that recording an instant allocates nothing and stores no reference into a long-lived
 * array (under G1 such a store is a card to dirty and refine).
 */
public final class EpochNanos {
  private static final long PER_SECOND = 1_000_000_000L;

  private EpochNanos() {}

  /** The latest and earliest second that fit; an instant beyond them saturates. */
  private static final long MAX_SECOND = Long.MAX_VALUE / PER_SECOND - 1;

  private static final long MIN_SECOND = Long.MIN_VALUE / PER_SECOND + 1;

  /**
   * The instant in epoch nanos; an instant past 2262 (or before 1677) saturates to the largest (or
   * smallest) value but one, so that no input wraps around or lands on a sentinel value.
   */
  public static long of(Instant t) {
    long second = t.getEpochSecond();
    if (second > MAX_SECOND) {
      return Long.MAX_VALUE - 1;
    }
    if (second < MIN_SECOND) {
      return Long.MIN_VALUE + 1;
    }
    return second * PER_SECOND + t.getNano();
  }

  /** Whether {@code nanos} is an instant's own value, not one that saturated. */
  public static boolean exact(long nanos) {
    return nanos != Long.MAX_VALUE - 1 && nanos != Long.MIN_VALUE + 1;
  }

  public static Instant instant(long nanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, PER_SECOND), Math.floorMod(nanos, PER_SECOND));
  }
}
