package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Value;
import io.sentinel.wire.PassLogJson;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The journal's quick texts say exactly what the slow ones they replace said. */
class JournalTextProperties {
  @Property(tries = 5_000)
  void anInstant_isWrittenAsInstantToStringWritesIt(@ForAll("instants") Instant t) {
    assertThat(InstantText.of(t)).isEqualTo(t.toString());
  }

  @Property(tries = 5_000)
  void aValue_isWrittenAsItsJsonNodeWritesIt(@ForAll("values") Value v) {
    assertThat(PassLogJson.valueJson(v)).isEqualTo(PassLogJson.valueNode(v).toString());
  }

  @Provide
  Arbitrary<Instant> instants() {
    // Seconds from before year 0 to after 9999, and fractions of every length ISO_INSTANT prints;
    // a run of nearby seconds exercises the cached second, a spread one its replacement.
    Arbitrary<Long> seconds =
        Arbitraries.oneOf(
            Arbitraries.longs().between(-70_000_000_000L, 300_000_000_000L),
            Arbitraries.longs().between(1_796_000_000L, 1_796_000_003L));
    Arbitrary<Integer> nanos =
        Arbitraries.oneOf(
            Arbitraries.just(0),
            Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
            Arbitraries.integers().between(0, 999_999).map(us -> us * 1_000),
            Arbitraries.integers().between(0, 999_999_999));
    return net.jqwik.api.Combinators.combine(seconds, nanos).as(Instant::ofEpochSecond);
  }

  @Provide
  Arbitrary<Value> values() {
    return Arbitraries.oneOf(
        Arbitraries.doubles().map(Value::of),
        Arbitraries.longs().map(l -> Value.of((double) l)),
        Arbitraries.of(
                Double.NaN,
                Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY,
                -0.0,
                1e15,
                1e15 - 1,
                -1e15,
                Double.MIN_VALUE,
                Double.MAX_VALUE)
            .map(Value::of),
        Arbitraries.of(true, false).map(b -> (Value) new Value.Bool(b)),
        Arbitraries.strings().ofMaxLength(12).map(s -> (Value) new Value.Text(s)),
        Arbitraries.just(Value.ABSENT));
  }
}
