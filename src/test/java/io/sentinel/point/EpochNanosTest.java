package io.sentinel.point;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Instants as epoch nanos: exact within the range a long holds, saturated beyond it. */
class EpochNanosTest {
  @Test
  void anInstantInRange_roundTrips() {
    for (String s :
        new String[] {
          "2026-12-06T05:32:28.123456789Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z"
        }) {
      Instant t = Instant.parse(s);
      assertThat(EpochNanos.instant(EpochNanos.of(t))).isEqualTo(t);
    }
    assertThat(EpochNanos.of(Instant.parse("2026-01-01T00:00:01Z")))
        .isEqualTo(EpochNanos.of(Instant.parse("2026-01-01T00:00:00Z")) + 1_000_000_000L);
  }

  @Test
  void anInstantBeyondTheRange_saturatesWithoutWrappingOrHittingTheExtremes() {
    assertThat(EpochNanos.of(Instant.MAX)).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(EpochNanos.of(Instant.parse("3000-01-01T00:00:00Z"))).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(EpochNanos.of(Instant.MIN)).isEqualTo(Long.MIN_VALUE + 1);
    assertThat(EpochNanos.of(Instant.parse("2262-01-01T00:00:00Z")))
        .isLessThan(EpochNanos.of(Instant.parse("3000-01-01T00:00:00Z")));
  }

  @Test
  void exact_tellsAnInstantsOwnValueFromASaturatedOne() {
    assertThat(EpochNanos.exact(EpochNanos.of(Instant.parse("2262-01-01T00:00:00Z")))).isTrue();
    assertThat(EpochNanos.exact(EpochNanos.of(Instant.parse("1677-12-31T00:00:00Z")))).isTrue();
    assertThat(EpochNanos.exact(EpochNanos.of(Instant.parse("3000-01-01T00:00:00Z")))).isFalse();
    assertThat(EpochNanos.exact(EpochNanos.of(Instant.MIN))).isFalse();
  }
}
