package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ComparisonPropertyTest {
  private static final Condition LESS =
      new Rig().number("x", "degC").number("y", "degC").condition("x.value < y.value");
  private static final Condition GREATER_OR_EQUAL =
      new Rig().number("x", "degC").number("y", "degC").condition("x.value >= y.value");
  private static final Condition LESS_CONVERTED =
      new Rig().number("x", "degF").number("y", "degC").condition("x.value < y.value");
  private static final Condition GREATER_OR_EQUAL_CONVERTED =
      new Rig().number("x", "degF").number("y", "degC").condition("x.value >= y.value");

  @Provide
  Arbitrary<Double> finite() {
    return Arbitraries.doubles().between(-1e12, 1e12).ofScale(6);
  }

  private static Inputs both(double x, double y) {
    return new Rig().number("x", "degC").number("y", "degC").set("x", x).set("y", y).inputs();
  }

  @Property
  void lessThan_isTheNegationOfGreaterOrEqual_whenBothArePresent(
      @ForAll("finite") double x, @ForAll("finite") double y) {
    Inputs inputs = both(x, y);
    assertThat(LESS.test(inputs)).isEqualTo(!GREATER_OR_EQUAL.test(inputs));
    assertThat(LESS.test(inputs)).isEqualTo(x < y);
  }

  @Property
  void lessThan_isTheNegationOfGreaterOrEqual_acrossUnits(
      @ForAll("finite") double x, @ForAll("finite") double y) {
    Inputs inputs = both(x, y);
    assertThat(LESS_CONVERTED.test(inputs)).isEqualTo(!GREATER_OR_EQUAL_CONVERTED.test(inputs));
  }

  @Property
  void withAnAbsentSide_bothAreFalse(@ForAll("finite") double x, @ForAll boolean absentX) {
    Rig rig = new Rig().number("x", "degC").number("y", "degC");
    rig.set(absentX ? "y" : "x", x).set(absentX ? "x" : "y", Value.ABSENT, Quality.STALE);
    Inputs inputs = rig.inputs();
    assertThat(LESS.test(inputs)).isFalse();
    assertThat(GREATER_OR_EQUAL.test(inputs)).isFalse();
  }

  @Property
  void compileTimeFolding_agreesWithRunTimeEvaluation(
      @ForAll("finite") double a, @ForAll("finite") double b) {
    Rig rig = new Rig().number("a", "").number("b", "").set("a", a).set("b", b);
    String folded = "(" + literal(a) + " - " + literal(b) + ") * 2 > 1";
    String live = "(a.value - b.value) * 2 > 1";
    assertThat(rig.test(folded)).isEqualTo(rig.test(live));
  }

  private static String literal(double v) {
    String s = java.math.BigDecimal.valueOf(Math.abs(v)).toPlainString();
    return v < 0 ? "(-" + s + ")" : s;
  }
}
