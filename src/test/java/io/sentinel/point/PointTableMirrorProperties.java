package io.sentinel.point;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What the table reads on the hot path without a point's state object (its number, truth, quality,
 * since, last sample, live since start) always says what that state says, whatever way the state
 * was written: samples of every type, in and out of range, quality alone, the watchdog's degrading,
 * a restore, a take-over by a new table, instants before 1677 and past 2262.
 */
class PointTableMirrorProperties {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static final List<PointSpec> SPECS =
      List.of(
          PointSpec.computed(
                  "temp",
                  new PointType.Number(MeasureUnit.parse("degC").orElseThrow()),
                  0.5,
                  SourceRef.NONE)
              .withRange(new PointSpec.Range(0, 100)),
          PointSpec.computed(
              "level",
              new PointType.Number(MeasureUnit.parse("degC").orElseThrow()),
              0,
              SourceRef.NONE),
          PointSpec.computed("door", new PointType.Bool(), 0, SourceRef.NONE),
          PointSpec.computed(
              "mode", new PointType.Enum(List.of("auto", "off")), 0, SourceRef.NONE));

  /** One write: {@code kind} 0-5 a sample, 6 a degrade, 7 a restore, 8 a take-over. */
  record Write(int point, int kind, double number, boolean bool, Quality quality, long atSecond) {}

  @Property(tries = 400)
  void theMirrorsSayWhatTheStateSays(@ForAll("writes") List<Write> writes) {
    Registry registry = Registry.of(SPECS);
    PointTable table = new PointTable(registry, T);
    for (Write w : writes) {
      String id = SPECS.get(w.point()).id();
      Instant at = Instant.ofEpochSecond(w.atSecond());
      Value value = valueFor(w);
      switch (w.kind()) {
        case 6 -> table.degrade(w.point(), w.quality(), at);
        case 7 -> {
          if (SPECS.get(w.point()).type().accepts(value)) {
            table.restore(id, value, at);
          }
        }
        case 8 -> {
          PointTable next = new PointTable(registry, T);
          next.takeOver(table, p -> !p.equals(id));
          table = next;
        }
        default -> {
          if (!value.isPresent() || SPECS.get(w.point()).type().accepts(value)) {
            table.apply(new Sample(id, value, w.quality(), at));
          }
        }
      }
      for (int i = 0; i < SPECS.size(); i++) {
        PointState s = table.state(i);
        double number = s.value() instanceof Value.Num n ? n.value() : Double.NaN;
        assertThat(Double.compare(table.number(i), number)).isZero();
        int truth = s.value() instanceof Value.Bool b ? (b.value() ? 1 : 0) : -1;
        assertThat(table.truth(i)).isEqualTo(truth);
        assertThat(table.quality(i)).isEqualTo(s.quality());
        assertThat(table.sinceNanos(i)).isEqualTo(EpochNanos.of(s.since()));
      }
    }
  }

  private static Value valueFor(Write w) {
    return switch (w.kind()) {
      case 0, 1 -> Value.of(w.number());
      case 2 -> Value.of(w.bool());
      case 3 -> Value.of(w.bool() ? "auto" : "off");
      case 4 -> Value.of(Double.NaN);
      default -> Value.ABSENT;
    };
  }

  @Provide
  Arbitrary<List<Write>> writes() {
    Arbitrary<Long> seconds =
        Arbitraries.oneOf(
            Arbitraries.longs().between(T.getEpochSecond(), T.getEpochSecond() + 1000),
            Arbitraries.of(-9_300_000_000L, 9_300_000_000L, 31_556_889_864_403_199L));
    Arbitrary<Write> write =
        Combinators.combine(
                Arbitraries.integers().between(0, SPECS.size() - 1),
                Arbitraries.integers().between(0, 8),
                Arbitraries.doubles().between(-50, 150),
                Arbitraries.of(true, false),
                Arbitraries.of(Quality.class),
                seconds)
            .as(Write::new);
    return write.list().ofMaxSize(40);
  }
}
