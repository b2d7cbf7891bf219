package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Evaluation of numbers in units, and of identifiers: {@link ExpressionEvaluationTest}'s rig. */
class ExpressionUnitsTest {
  private final Rig rig = Rig.standard();

  @Nested
  class Units {
    @Test
    void aBareNumber_takesTheInputsUnit() {
      rig.set("flow-temp", 36);
      assertThat(rig.test("flow-temp.value > 35")).isTrue(); // 35 degF, not converted
    }

    @Test
    void degF_isConvertedIntoTheDegCOfThePoint() {
      rig.set("flow", 35); // 95 degF
      assertThat(rig.test("flow.value > 95 degF")).isFalse();
      assertThat(rig.test("flow.value >= 95degF")).isTrue();
      rig.set("flow", 35.01);
      assertThat(rig.test("flow.value > 95 degF")).isTrue();
      rig.set("flow", 100);
      assertThat(rig.test("flow.value == 212 degF")).isTrue();
      rig.set("flow", -40);
      assertThat(rig.test("flow.value == -40 degF")).isTrue();
    }

    @Test
    void degC_isConvertedIntoTheDegFOfThePoint() {
      rig.set("flow-temp", 212);
      assertThat(rig.test("flow-temp.value == 100 degC")).isTrue();
      assertThat(rig.test("flow-temp.value < 100.1 degC")).isTrue();
    }

    @Test
    void amperes_areConvertedIntoMilliamperes_andBack() {
      rig.set("loop", 4);
      assertThat(rig.test("loop.value > 0.004 A")).isFalse();
      assertThat(rig.test("loop.value == 0.004 A")).isTrue();
      rig.set("loop", 4.5);
      assertThat(rig.test("loop.value > 0.004 A")).isTrue();
      rig.set("amps", 0.019);
      assertThat(rig.test("amps.value < 20 mA")).isTrue();
      assertThat(rig.test("amps.value > 18mA")).isTrue();
    }

    @Test
    void otherUnitsOfTheCatalogue_convert() {
      rig.set("age", 301).set("pressure", 200).set("humidity", 0.6);
      assertThat(rig.test("age.value > 5 min")).isTrue();
      assertThat(rig.test("age.value < 302000 ms")).isTrue();
      assertThat(rig.test("pressure.value == 2 bar")).isTrue();
      assertThat(rig.test("humidity.value > 5000 ppm")).isTrue();
      assertThat(rig.test("humidity.value > 50 %")).isFalse();
    }

    @Test
    void twoInputsInCompatibleUnits_areConvertedAtRunTime() {
      rig.set("flow-temp", 212).set("flow", 99.9);
      assertThat(rig.test("flow-temp.value > flow.value")).isTrue();
      assertThat(rig.test("flow.value < flow-temp.value")).isTrue();
      rig.set("flow", 100.1);
      assertThat(rig.test("flow-temp.value > flow.value")).isFalse();
      rig.set("loop", 20).set("amps", 0.02);
      assertThat(rig.test("loop.value == amps.value")).isTrue();
    }

    @Test
    void addition_convertsTheRightOperandIntoTheLeftsUnit() {
      rig.set("age", 30);
      assertThat(rig.test("age.value + 1 min == 90")).isTrue();
      assertThat(rig.test("age.value - 500 ms == 29.5 s")).isTrue();
      rig.set("loop", 10).set("amps", 0.005);
      assertThat(rig.test("loop.value + amps.value == 15")).isTrue();
    }

    @Test
    void multiplication_keepsTheUnitOfTheSideThatHasOne() {
      rig.set("flow", 20).set("count", 2);
      assertThat(rig.test("flow.value * 2 == 104 degF")).isTrue();
      assertThat(rig.test("flow.value * count.value == 40")).isTrue();
      assertThat(rig.test("flow.value / count.value == 10 degC")).isTrue();
    }

    @Test
    void constantsAndConversions_areComputedAtCompileTime() {
      CompiledCondition c = (CompiledCondition) rig.condition("flow.value > 95 degF");
      assertThat(c.root()).isInstanceOf(BoolExpr.NumCompare.class);
      NumExpr right = ((BoolExpr.NumCompare) c.root()).right();
      assertThat(right).isInstanceOf(NumExpr.Const.class);
      assertThat(((NumExpr.Const) right).value()).isCloseTo(35, within(1e-9));

      CompiledCondition sum = (CompiledCondition) rig.condition("flow.value > (30 + 2 * 2.5) * 1");
      assertThat(((BoolExpr.NumCompare) sum.root()).right()).isEqualTo(new NumExpr.Const(35));

      assertThat(((CompiledCondition) rig.condition("1 < 2 or flow.value > 3")).root())
          .isEqualTo(new BoolExpr.Const(true));
    }
  }

  @Nested
  class Identifiers {
    @Test
    void dashesJoinIdentifiers_butSpacedDashesSubtract() {
      rig.set("flow-temp", 60).set("flow", 10); // 10 degC is 50 degF
      assertThat(rig.test("flow-temp.value - flow.value > 3")).isTrue();
      assertThat(rig.test("flow-temp.value-flow.value > 3")).isTrue();
      assertThat(rig.condition("flow-temp.value > 3").inputsRead()).containsExactly("flow-temp");
    }

    @Test
    void unitsMayBeAttachedOrSpaced_andMinIsMinuteWhileMIsMetre() {
      rig.set("age", 30);
      assertThat(rig.test("age.value == 0.5 min")).isTrue();
      assertThat(rig.test("age.value == 30s")).isTrue();
      rig.set("flow", 36);
      assertThat(rig.test("flow.value > 40degC-5")).isTrue();
      assertThat(rig.compile("age.value > 5 m").problems())
          .extracting(ExprProblem::code)
          .containsExactly("EXPR-014");
    }

    @Test
    void whitespaceAndNewlines_areInsignificant() {
      rig.set("demand", false).set("flow", 40);
      assertThat(rig.test("demand . value==false\n  and\tflow.value>35")).isTrue();
      assertThat(rig.test("(\n demand.value == false\r\n)")).isTrue();
    }

    @Test
    void slots_followTheDeclarationOrder() {
      Rig two = new Rig().number("b", "").number("a", "");
      Condition c = two.condition("a.value > b.value");
      PointState b = new PointState(Value.of(1), Quality.LIVE, Instant.EPOCH);
      PointState a = new PointState(Value.of(2), Quality.LIVE, Instant.EPOCH);
      assertThat(c.test(slot -> slot == 0 ? b : a)).isTrue();
      assertThat(c.inputsRead()).containsExactly("b", "a");
    }
  }
}
