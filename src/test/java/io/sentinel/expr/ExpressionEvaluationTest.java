package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExpressionEvaluationTest {
  private final Rig rig = Rig.standard();

  @Nested
  class TheSeedExample {
    private static final String SEED = "demand.value == false and flow.value > 35";

    @Test
    void isTrue_whenNoDemandAndFlowAbove35() {
      rig.set("demand", false).set("flow", 35.5);
      assertThat(rig.test(SEED)).isTrue();
    }

    @Test
    void isFalse_whenFlowIsExactly35() {
      rig.set("demand", false).set("flow", 35);
      assertThat(rig.test(SEED)).isFalse();
    }

    @Test
    void isFalse_whenThereIsDemand() {
      rig.set("demand", true).set("flow", 50);
      assertThat(rig.test(SEED)).isFalse();
    }

    @Test
    void isFalse_whenDemandIsAbsent() {
      rig.absent("demand").set("flow", 50);
      assertThat(rig.test(SEED)).isFalse();
    }

    @Test
    void readsBothInputs_inDeclarationOrder() {
      assertThat(rig.condition(SEED).inputsRead()).containsExactly("flow", "demand");
      assertThat(rig.condition(SEED).source()).isEqualTo(SEED);
    }

    @Test
    void theSecondSeedExample_acceptsAStaleReadingOrAHighOne() {
      String source = "flow.value >= 95 degC or flow.quality in [stale, unavailable]";
      rig.set("flow", 20);
      assertThat(rig.test(source)).isFalse();
      rig.set("flow", 95);
      assertThat(rig.test(source)).isTrue();
      rig.set("flow", Value.of(20), Quality.STALE);
      assertThat(rig.test(source)).isTrue();
      rig.set("flow", Value.ABSENT, Quality.UNAVAILABLE);
      assertThat(rig.test(source)).isTrue();
    }
  }

  @Nested
  class Precedence {
    @Test
    void notBindsTighterThanAnd() {
      rig.set("demand", false).set("flow", 30);
      // (not demand) and (flow > 35) = true and false; not (demand and flow > 35) would be true
      assertThat(rig.test("not demand.value and flow.value > 35")).isFalse();
    }

    @Test
    void notAppliesToTheWholeComparison() {
      rig.set("flow", 40);
      assertThat(rig.test("not flow.value > 35")).isFalse();
      assertThat(rig.test("not not flow.value > 35")).isTrue();
    }

    @Test
    void andBindsTighterThanOr() {
      rig.set("demand", true).set("flow", 0).set("mode", "off");
      // demand or (flow > 35 and mode == heating) is true; (demand or flow > 35) and ... is false
      assertThat(rig.test("demand.value or flow.value > 35 and mode.value == heating")).isTrue();
      assertThat(rig.test("(demand.value or flow.value > 35) and mode.value == heating")).isFalse();
    }

    @Test
    void multiplicationBindsTighterThanSubtraction() {
      rig.set("flow", 5);
      assertThat(rig.test("flow.value - 2 * 3 == -1")).isTrue();
      assertThat(rig.test("(flow.value - 2) * 3 == 9")).isTrue();
    }

    @Test
    void sumsAndProductsAreLeftAssociative() {
      rig.set("count", 10);
      assertThat(rig.test("count.value - 4 - 3 == 3")).isTrue();
      assertThat(rig.test("count.value / 5 / 2 == 1")).isTrue();
    }

    @Test
    void unaryMinusAppliesToItsAtom() {
      rig.set("flow", 5);
      assertThat(rig.test("-flow.value + 10 == 5")).isTrue();
      assertThat(rig.test("- -flow.value == 5")).isTrue();
    }

    @Test
    void arithmeticBindsTighterThanComparison() {
      rig.set("flow", 30);
      assertThat(rig.test("flow.value + 10 > 35")).isTrue();
    }
  }

  @ParameterizedTest(name = "{1} {0} 35 is {2}")
  @CsvSource({
    "==, 34, false", "==, 35, true", "==, 36, false",
    "!=, 34, true", "!=, 35, false", "!=, 36, true",
    "<, 34, true", "<, 35, false", "<, 36, false",
    "<=, 34, true", "<=, 35, true", "<=, 36, false",
    ">, 34, false", ">, 35, false", ">, 36, true",
    ">=, 34, false", ">=, 35, true", ">=, 36, true",
  })
  void eachComparisonOperator_comparesNumbers(String op, double flow, boolean expected) {
    rig.set("flow", flow);
    assertThat(rig.test("flow.value " + op + " 35")).isEqualTo(expected);
    // and with the literal on the left, mirrored
    String mirrored =
        switch (op) {
          case "<" -> ">";
          case "<=" -> ">=";
          case ">" -> "<";
          case ">=" -> "<=";
          default -> op;
        };
    assertThat(rig.test("35 " + mirrored + " flow.value")).isEqualTo(expected);
  }

  @Nested
  class EqualityOfOtherKinds {
    @Test
    void bools_compareWithTrueAndFalse() {
      rig.set("demand", true);
      assertThat(rig.test("demand.value == true")).isTrue();
      assertThat(rig.test("demand.value != true")).isFalse();
      assertThat(rig.test("demand.value == false")).isFalse();
      assertThat(rig.test("demand.value")).isTrue();
      assertThat(rig.test("(flow.value > 3) == false")).isTrue(); // flow is absent
    }

    @Test
    void enums_compareWithTheirSymbols() {
      rig.set("mode", "heating");
      assertThat(rig.test("mode.value == heating")).isTrue();
      assertThat(rig.test("heating == mode.value")).isTrue();
      assertThat(rig.test("mode.value != cooling")).isTrue();
    }

    @Test
    void texts_compareWithQuotedText_andHonourEscapes() {
      rig.set("label", "pump \"A\" \\ west");
      assertThat(rig.test("label.value == \"pump \\\"A\\\" \\\\ west\"")).isTrue();
      assertThat(rig.test("label.value != \"pump\"")).isTrue();
    }

    @Test
    void qualities_compareWithQualityNames() {
      rig.set("flow", Value.of(3), Quality.BAD);
      assertThat(rig.test("flow.quality == bad")).isTrue();
      assertThat(rig.test("flow.quality != live")).isTrue();
      assertThat(rig.test("flow.quality == demand.quality")).isFalse(); // demand is unknown
    }

    @Test
    void twoInputsOfTheSameKind_compareAtRunTime() {
      rig.set("flow", 3).set("count", 3);
      rig.enumeration("mode2", "off", "heating").set("mode2", "heating").set("mode", "heating");
      assertThat(rig.test("mode.value == mode2.value")).isTrue();
    }
  }

  @Nested
  class InLists {
    @Test
    void enumIn_matchesAnyListedSymbol() {
      rig.set("mode", "heating");
      assertThat(rig.test("mode.value in [heating, cooling]")).isTrue();
      assertThat(rig.test("mode.value not in [heating, cooling]")).isFalse();
      rig.set("mode", "off");
      assertThat(rig.test("mode.value in [heating, cooling]")).isFalse();
      assertThat(rig.test("mode.value not in [heating, cooling]")).isTrue();
    }

    @Test
    void qualityIn_matchesAnyListedQuality() {
      rig.set("flow", Value.of(1), Quality.RESTORED);
      assertThat(rig.test("flow.quality in [stale, restored]")).isTrue();
      assertThat(rig.test("flow.quality not in [live]")).isTrue();
      assertThat(rig.test("flow.quality not in [live, restored]")).isFalse();
    }

    @Test
    void numberIn_convertsEachElementIntoTheInputsUnit() {
      rig.set("flow", 100);
      assertThat(rig.test("flow.value in [1, 2, 212 degF]")).isTrue();
      assertThat(rig.test("flow.value in [-100, 99.5]")).isFalse();
      assertThat(rig.test("flow.value not in [-100, 99.5]")).isTrue();
    }

    @Test
    void boolAndTextIn_work() {
      rig.set("demand", false).set("label", "b");
      assertThat(rig.test("demand.value in [false]")).isTrue();
      assertThat(rig.test("label.value in [\"a\", \"b\"]")).isTrue();
      assertThat(rig.test("label.value not in [\"a\", \"b\"]")).isFalse();
    }

    @Test
    void inBindsTighterThanAndAndNot() {
      rig.set("mode", "off").set("demand", true);
      assertThat(rig.test("not mode.value in [heating] and demand.value")).isTrue();
    }
  }

  @Nested
  class AbsentValues {
    @Test
    void everyComparisonWithAnAbsentNumber_isFalse_andItsNotIsTrue() {
      rig.absent("flow");
      for (String op : new String[] {"==", "!=", "<", "<=", ">", ">="}) {
        assertThat(rig.test("flow.value " + op + " 35")).as(op).isFalse();
        assertThat(rig.test("35 " + op + " flow.value")).as("mirrored " + op).isFalse();
        assertThat(rig.test("not (flow.value " + op + " 35)")).as("not " + op).isTrue();
      }
    }

    @Test
    void notEqual_isFalse_forAbsentValuesOfEveryKind() {
      assertThat(rig.test("demand.value != true")).isFalse();
      assertThat(rig.test("mode.value != heating")).isFalse();
      assertThat(rig.test("label.value != \"x\"")).isFalse();
      assertThat(rig.test("flow.value != flow-temp.value")).isFalse();
      assertThat(rig.test("count.value != count.value")).isFalse();
    }

    @Test
    void inAndNotIn_areBothFalse() {
      assertThat(rig.test("flow.value in [1, 2]")).isFalse();
      assertThat(rig.test("flow.value not in [1, 2]")).isFalse();
      assertThat(rig.test("mode.value not in [off]")).isFalse();
      rig.number("spare", "").set("count", 1);
      assertThat(rig.test("count.value in [1, spare.value]")).isFalse(); // an absent element
    }

    @Test
    void aBoolInputUsedDirectly_testsFalse_andItsNotTrue() {
      assertThat(rig.test("demand.value")).isFalse();
      assertThat(rig.test("not demand.value")).isTrue();
      assertThat(rig.test("demand.value == false")).isFalse();
      assertThat(rig.test("not (demand.value == false)")).isTrue();
    }

    @Test
    void arithmeticWithAnAbsentOperand_isAbsent() {
      rig.number("rig", "").set("count", 1);
      assertThat(rig.test("flow.value + 1 > -1000")).isFalse();
      assertThat(rig.test("flow.value * 0 == 0")).isFalse();
      assertThat(rig.test("count.value - rig.value != 0")).isFalse();
    }

    @Test
    void aValueOfTheWrongKind_countsAsAbsent() {
      rig.set("flow", "oops");
      assertThat(rig.test("flow.value != 1")).isFalse();
    }

    @Test
    void qualityIsStillReadable() {
      assertThat(rig.test("flow.quality == unknown")).isTrue();
    }
  }

  @Test
  void andAndOr_shortCircuit() {
    int flowSlot = rig.slot("flow");
    Inputs base = rig.set("demand", false).inputs();
    Inputs flowForbidden =
        slot -> {
          if (slot == flowSlot) {
            throw new AssertionError("flow read");
          }
          return base.state(slot);
        };
    assertThat(rig.condition("demand.value and flow.value > 3").test(flowForbidden)).isFalse();
    assertThat(rig.condition("not demand.value or flow.value > 3").test(flowForbidden)).isTrue();
  }

  @Test
  void evaluation_allocatesNothing() {
    rig.set("demand", false).set("flow", 36).set("mode", "heating").set("flow-temp", 100);
    Condition c =
        rig.condition(
            "demand.value == false and flow.value > 95 degF and mode.value in [heating, cooling]"
                + " and flow.quality not in [stale, bad] and flow-temp.value - 1 > flow.value"
                + " and label.value != \"x\" or demand.value");
    Inputs inputs = rig.inputs();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    boolean any = false;
    for (int i = 0; i < 200_000; i++) {
      any |= c.test(inputs); // warm up
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 1_000_000; i++) {
      any |= c.test(inputs);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(any).isFalse(); // label is absent, so != is false; demand is false
    assertThat(allocated).as("bytes allocated by a million evaluations").isLessThan(100_000);
  }
}
