package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The freshness a rule's claims are arbitrated by, worked out from the point table's epoch nanos
 * ({@link RuleRuntime#claimCurrent}), is its inputs' newest change as instants say it ({@link
 * RuleRuntime#freshness}), for instants within 1677-2262 and beyond them, and it says it moved
 * exactly when it did.
 */
class ClaimFreshnessProperties {
  @Property(tries = 300)
  void theNanosPathSaysWhatTheInstantsSay(@ForAll("stamps") List<Long> seconds) {
    // zone-valve-on-demand reads zone.demand (bool) and zone.outside-temp (number).
    RuleRuntime r = SemanticsSite.runtime(SemanticsSite.rule("zone-valve-on-demand"), 600);
    PointTable points = r.points;
    boolean flip = false;
    for (long second : seconds) {
      Instant at = Instant.ofEpochSecond(second, Math.floorMod(second, 1_000_000_000L));
      flip = !flip;
      points.apply(
          second % 2 == 0
              ? new Sample("zone.demand", Value.of(flip), Quality.LIVE, at)
              : new Sample("zone.outside-temp", Value.of(flip ? 5 : 15), Quality.LIVE, at));
      Instant before = r.claimedFreshness();
      boolean moved = r.claimCurrent();
      assertThat(r.claimedFreshness()).isEqualTo(r.freshness());
      assertThat(moved).isEqualTo(!before.equals(r.freshness()));
    }
  }

  @Provide
  Arbitrary<List<Long>> stamps() {
    return Arbitraries.oneOf(
            Arbitraries.longs().between(-100_000L, 4_000_000_000L),
            Arbitraries.of(
                -9_300_000_000L, 9_223_372_035L, 9_223_372_037L, 9_300_000_000L, 31_556_889_864L))
        .list()
        .ofMinSize(1)
        .ofMaxSize(20);
  }
}
