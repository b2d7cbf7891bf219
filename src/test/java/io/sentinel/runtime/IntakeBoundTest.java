package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The intake bound: reading paused at the bound, resumed at half, the overload said once. */
class IntakeBoundTest {
  private final AtomicLong held = new AtomicLong();
  private final List<Boolean> reading = new ArrayList<>();
  private final List<ControlEvent> events = new ArrayList<>();
  private final List<SelfPoint> selfPoints = new ArrayList<>();
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-12-02T04:00:00Z"));
  private final IntakeBound bound =
      new IntakeBound(
          1000,
          held::get,
          pause -> reading.add(pause),
          (e, p) -> {
            events.add(e);
            selfPoints.add(p);
          },
          now::get);

  @Test
  void pausesAtTheBound_resumesAtHalf_saysTheEpisodeOnce_andItsEndAfterQuiet() {
    held.set(999);
    bound.check();
    assertThat(reading).isEmpty();
    held.set(1000);
    bound.check();
    assertThat(reading).containsExactly(true);
    assertThat(bound.paused()).isTrue();
    held.set(501);
    bound.check();
    assertThat(reading).containsExactly(true);
    held.set(500);
    bound.check();
    assertThat(reading).containsExactly(true, false);
    held.set(1200);
    bound.check();
    bound.check();
    assertThat(reading).containsExactly(true, false, true);
    assertThat(bound.pauses()).isEqualTo(2);
    assertThat(events).extracting(ControlEvent::kind).containsExactly("ingest-overloaded");
    assertThat(selfPoints.get(0).name()).isEqualTo("ingest.overloaded");

    held.set(0);
    bound.check();
    now.set(now.get().plus(Duration.ofSeconds(4)));
    bound.tick();
    assertThat(events).hasSize(1);
    now.set(now.get().plus(IntakeBound.QUIET));
    bound.tick();
    bound.tick();
    assertThat(events)
        .extracting(ControlEvent::kind)
        .containsExactly("ingest-overloaded", "ingest-overload-ended");
    assertThat(events.get(1).message()).contains("paused 2 times");
    assertThat(selfPoints.get(1).value().toString()).contains("false");
  }

  @Test
  void theDefaultBound_isAnEighthOfTheHeapAtAKilobyteAMessage() {
    assertThat(IntakeBound.defaultMax(48L << 20)).isEqualTo(6144);
    assertThat(IntakeBound.defaultMax(1L << 20)).isEqualTo(500);
    assertThat(IntakeBound.defaultMax(8L << 30)).isEqualTo(65_534);
  }
}
