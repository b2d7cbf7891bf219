package io.sentinel.derived;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointTable;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The staleness watchdog ages a point the same whether its checks are worked out in epoch nanos (no
 * lag ever, instants within 1970-2262) or as instants (after a lag, or past 2262).
 */
class WatchdogTest {
  private static final PointSpec TEMP =
      new PointSpec(
          "boiler.temp",
          new PointType.Number(MeasureUnit.NONE),
          io.sentinel.point.Direction.IN,
          0,
          Optional.empty(),
          Optional.of(Duration.ofSeconds(2)),
          Optional.of(Duration.ofSeconds(5)),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          SourceRef.NONE,
          Optional.empty());

  /** The watchdog's transitions after one sample at {@code base}: "offset ms: quality". */
  private static List<String> ageing(Instant base, boolean lagOnce) {
    PointTable table = new PointTable(Registry.of(List.of(TEMP)), base);
    LagTime lag = new LagTime(base);
    if (lagOnce) {
      lag.setLagging(true); // a lag that began and ended at once: no time lost, but recorded
      lag.setLagging(false);
    }
    DerivedLayer layer = new DerivedLayer(DerivedSet.EMPTY, table, lag, base);
    Sample sample = Sample.live(TEMP.id(), Value.of(60.0), base);
    List<Transition> applied = new ArrayList<>();
    table.apply(sample).ifPresent(applied::add);
    layer.step(base, List.of(sample), applied);
    List<String> seen = new ArrayList<>();
    for (long ms = 500; ms <= 8000; ms += 500) {
      Instant t = base.plusMillis(ms);
      lag.advance(t);
      for (Transition tr : layer.step(t, List.of(), List.of())) {
        seen.add(ms + ": " + tr.current().quality());
      }
    }
    return seen;
  }

  @Test
  void aQuietPoint_turnsStaleThenUnavailable_atItsDurations() {
    assertThat(ageing(Instant.parse("2026-12-06T09:00:00Z"), false))
        .containsExactly("2000: STALE", "5000: UNAVAILABLE");
  }

  @Test
  void afterALag_andPast2262_theInstantPathAgesTheSame() {
    List<String> inNanos = ageing(Instant.parse("2026-12-06T09:00:00Z"), false);
    assertThat(ageing(Instant.parse("2026-12-06T09:00:00Z"), true)).isEqualTo(inNanos);
    assertThat(ageing(Instant.parse("2300-01-01T00:00:00Z"), false)).isEqualTo(inNanos);
  }
}
