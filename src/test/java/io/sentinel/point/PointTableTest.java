package io.sentinel.point;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PointTableTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final PointSpec TEMP =
      PointSpec.computed(
              "t",
              new PointType.Number(MeasureUnit.parse("degC").orElseThrow()),
              0.5,
              SourceRef.NONE)
          .withRange(new PointSpec.Range(0, 100));

  private final PointTable table = new PointTable(Registry.of(List.of(TEMP)), T);

  @Test
  void unseenPoint_isUnknownWithNoValue() {
    assertThat(table.state("t").orElseThrow()).isEqualTo(PointState.unknown(T));
    assertThat(table.liveSinceStart(0)).isFalse();
  }

  @Test
  void deadband_measuresDriftAgainstTheLastReportedValue() {
    assertThat(table.apply(Sample.live("t", Value.of(20), T))).isPresent();
    assertThat(table.apply(Sample.live("t", Value.of(20.3), T.plusSeconds(1)))).isEmpty();
    assertThat(table.apply(Sample.live("t", Value.of(20.4), T.plusSeconds(2)))).isEmpty();
    Transition moved =
        table.apply(Sample.live("t", Value.of(20.5), T.plusSeconds(3))).orElseThrow();
    assertThat(moved.valueChanged()).isTrue();
    assertThat(moved.previous().value()).isEqualTo(Value.of(20));
  }

  @Test
  void outOfRange_isKeptWithQualityBad() {
    Transition t = table.apply(Sample.live("t", Value.of(140), T)).orElseThrow();
    assertThat(t.current()).isEqualTo(new PointState(Value.of(140), Quality.BAD, T));
  }

  @Test
  void qualityAlone_keepsTheValue_andIsATransition() {
    table.apply(Sample.live("t", Value.of(20), T));
    Transition t =
        table.apply(new Sample("t", Value.ABSENT, Quality.STALE, T.plusSeconds(30))).orElseThrow();
    assertThat(t.qualityChanged()).isTrue();
    assertThat(t.valueChanged()).isFalse();
    assertThat(t.current().value()).isEqualTo(Value.of(20));
  }

  @Test
  void restored_isNotLive() {
    table.restore("t", Value.of(50), T);
    assertThat(table.state("t").orElseThrow().quality()).isEqualTo(Quality.RESTORED);
    assertThat(table.liveSinceStart(0)).isFalse();
  }

  @Test
  void wrongType_andUnknownPoint_areRefused() {
    assertThatThrownBy(() -> table.apply(Sample.live("t", Value.TRUE, T)))
        .hasMessageContaining("t is number");
    assertThatThrownBy(() -> table.apply(Sample.live("nope", Value.TRUE, T)))
        .hasMessageContaining("unknown point nope");
  }

  @Test
  void rangeBoundsAreInside_aNonFiniteNumberIsRefused_andWithoutDeadbandAnyChangeCounts() {
    assertThat(table.apply(Sample.live("t", Value.of(0), T)).orElseThrow().current().quality())
        .isEqualTo(Quality.LIVE);
    assertThat(
            table.apply(Sample.live("t", Value.of(100), T.plusSeconds(1))).orElseThrow().current())
        .isEqualTo(new PointState(Value.of(100), Quality.LIVE, T.plusSeconds(1)));
    assertThat(
            table.apply(Sample.live("t", Value.of(-0.5), T.plusSeconds(2))).orElseThrow().current())
        .isEqualTo(new PointState(Value.of(-0.5), Quality.BAD, T.plusSeconds(2)));
    assertThatThrownBy(() -> table.apply(Sample.live("t", Value.of(Double.NaN), T)))
        .hasMessageContaining("t is number");
    assertThatThrownBy(() -> table.apply(Sample.live("t", Value.of(Double.POSITIVE_INFINITY), T)))
        .hasMessageContaining("t is number");

    PointSpec raw =
        PointSpec.computed(
            "r", new PointType.Number(MeasureUnit.parse("degC").orElseThrow()), 0, SourceRef.NONE);
    PointTable open = new PointTable(Registry.of(List.of(raw)), T);
    assertThat(open.apply(Sample.live("r", Value.of(1e9), T)).orElseThrow().current().quality())
        .isEqualTo(Quality.LIVE);
    assertThat(open.apply(Sample.live("r", Value.of(1e9), T.plusSeconds(1)))).isEmpty();
    assertThat(open.apply(Sample.live("r", Value.of(1e9 + 1e-6), T.plusSeconds(2)))).isPresent();
  }
}
