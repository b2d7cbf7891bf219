package io.sentinel.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The journal's clock for tests whose records carry fixed times: it ticks from {@code start}, so
 * the feeder's daily retention (which drops days older than {@code retention} before the clock's
 * today) sees the records as recent whatever day the suite runs on. With the system clock, records
 * of a fixed day were dropped once that day was more than the retention behind (CI on 2026-12-03:
 * the rows of 2026-11-02 went at the first reopen).
 */
final class TestClock {
  private TestClock() {}

  static InstantSource startingAt(Instant start) {
    return Clock.offset(Clock.systemUTC(), Duration.between(Instant.now(), start));
  }
}
