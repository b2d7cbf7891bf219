package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExpressionProblemsTest {
  private final Rig rig = Rig.standard();

  private static void assertProblem(
      ExprProblem p, String code, int line, int column, String... messageParts) {
    assertThat(p.code()).as("code of %s", p).isEqualTo(code);
    assertThat(p.line()).as("line of %s", p).isEqualTo(line);
    assertThat(p.column()).as("column of %s", p).isEqualTo(column);
    if (messageParts.length > 0) {
      assertThat(p.message()).contains(messageParts);
    }
  }

  @Test
  void badCharacter_isEXPR001_withAHintForSingleEquals() {
    assertProblem(rig.problem("flow.value > 35 $"), "EXPR-001", 1, 17, "'$'");
    assertProblem(rig.problem("flow.value = 35"), "EXPR-001", 1, 12, "write ==");
    assertProblem(rig.problem("demand.value && flow.value > 1"), "EXPR-001", 1, 14, "write and");
    assertProblem(rig.problem("flow.value > 1e999"), "EXPR-001", 1, 14, "too large");
  }

  @Test
  void badText_isEXPR002() {
    assertProblem(rig.problem("label.value == \"abc"), "EXPR-002", 1, 16, "closing double quote");
    assertProblem(rig.problem("label.value == \"a\\nb\""), "EXPR-002", 1, 18, "'\\n'");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "flow.value >              | 1 | 13 | found the end of the expression",
        "flow.value > > 3          | 1 | 14 | found '>'",
        "(flow.value > 3           | 1 | 16 | expected ) to close the ( at line 1, column 1",
        "flow.value in [1, 2       | 1 | 20 | the list opened at line 1, column 15",
        "flow.value in []          | 1 | 16 | at least one element",
        "flow.value in 1           | 1 | 15 | expected a list",
        "flow.value 3              | 1 | 12 | missing",
        "flow.value > 35 demand.value | 1 | 17 | missing",
        "flow.value > 3 )          | 1 | 16 | found ')'",
        "flow. > 3                 | 1 | 7  | expected value or quality after 'flow.'",
        "flow.value > 1 < 2        | 1 | 16 | found '<'",
        "''                        | 1 | 1  | found the end of the expression",
      })
  void syntaxErrors_areEXPR003_atTheOffendingToken(
      String source, int line, int column, String message) {
    assertProblem(rig.problem(source), "EXPR-003", line, column, message);
  }

  @Test
  void unknownUnit_isEXPR004_andSuggestsNearbyUnits() {
    assertProblem(rig.problem("flow.value > 35 degc"), "EXPR-004", 1, 17, "'degc'", "degC");
    assertProblem(rig.problem("flow.value > 35furlong"), "EXPR-004", 1, 16, "known units are");
    assertThat(rig.problem("age.value > 5 mins").message()).contains("did you mean min");
  }

  @Test
  void unknownInput_isEXPR005_andListsTheDeclaredInputs() {
    Rig small = new Rig().number("flow", "degC").bool("demand");
    assertProblem(
        small.problem("flwo.value > 3"),
        "EXPR-005",
        1,
        1,
        "unknown input 'flwo': declared inputs are flow, demand",
        "did you mean flow?");
    assertThat(new Rig().problem("x.value > 3").message()).contains("declares no inputs");
  }

  @Test
  void bareInput_isEXPR006_andSuggestsValueOrQuality() {
    assertProblem(
        rig.problem("flow > 35"), "EXPR-006", 1, 1, "write flow.value", "or flow.quality");
    assertProblem(rig.problem("demand.value and demand"), "EXPR-006", 1, 18, "'demand'");
  }

  @Test
  void unknownMember_isEXPR007() {
    assertProblem(rig.problem("flow.val > 35"), "EXPR-007", 1, 6, "flow.value and flow.quality");
  }

  @Test
  void notACondition_isEXPR008_wherever_aConditionIsNeeded() {
    assertProblem(rig.problem("flow.value"), "EXPR-008", 1, 1, "a number in degC", "flow.value >");
    assertProblem(rig.problem("demand.value and mode.value"), "EXPR-008", 1, 18, "enum");
    assertProblem(rig.problem("not flow.quality"), "EXPR-008", 1, 5, "a quality");
    assertProblem(rig.problem("flow.value + 1 or demand.value"), "EXPR-008", 1, 1, "number");
  }

  @Test
  void kindMismatch_isEXPR009_namingBothSides() {
    assertProblem(
        rig.problem("flow.value == demand.value"),
        "EXPR-009",
        1,
        12,
        "flow.value (a number in degC)",
        "demand.value (true/false)");
    assertProblem(rig.problem("mode.value == \"heating\""), "EXPR-009", 1, 12, "without quotes");
    assertProblem(rig.problem("label.value == mode.value"), "EXPR-009", 1, 13, "text", "enum");
    assertProblem(rig.problem("flow.quality in [live, 3]"), "EXPR-009", 1, 24, "element 3");
    assertProblem(rig.problem("demand.value == 1"), "EXPR-009", 1, 14, "true/false");
  }

  @Test
  void unknownEnumSymbol_isEXPR010_listingTheValues() {
    assertProblem(
        rig.problem("mode.value == heatng"),
        "EXPR-010",
        1,
        15,
        "'heatng' is not a value of mode.value",
        "off, heating, cooling",
        "did you mean heating?");
    assertProblem(rig.problem("mode.value not in [off, auto]"), "EXPR-010", 1, 25, "'auto'");
  }

  @Test
  void unknownQuality_isEXPR011_listingTheQualities() {
    assertProblem(
        rig.problem("flow.quality == stael"),
        "EXPR-011",
        1,
        17,
        "live, stale, unavailable, bad, unknown, restored",
        "did you mean stale?");
    assertProblem(rig.problem("flow.quality in [LIVE]"), "EXPR-011", 1, 18, "did you mean live?");
  }

  @Test
  void orderingANonNumber_isEXPR012() {
    assertProblem(rig.problem("mode.value > heating"), "EXPR-012", 1, 12, "numbers only", "enum");
    assertProblem(rig.problem("demand.value < true"), "EXPR-012", 1, 14, "true/false");
    assertProblem(rig.problem("flow.quality >= stale"), "EXPR-012", 1, 14, "quality");
    assertProblem(rig.problem("label.value <= \"a\""), "EXPR-012", 1, 13, "text");
  }

  @Test
  void arithmeticOnANonNumber_isEXPR013() {
    assertProblem(rig.problem("demand.value + 1 > 2"), "EXPR-013", 1, 14, "'+'", "true/false");
    assertProblem(rig.problem("-mode.value == off"), "EXPR-013", 1, 1, "'-'", "enum");
  }

  @Test
  void incompatibleUnits_isEXPR014_namingBothUnits() {
    assertProblem(
        rig.problem("loop.value > 4 V"),
        "EXPR-014",
        1,
        12,
        "loop.value (mA)",
        "4 V (V)",
        "mA",
        "V");
    assertProblem(rig.problem("flow.value > 30 s"), "EXPR-014", 1, 12, "degC", "(s)");
    assertProblem(rig.problem("flow.value > age.value"), "EXPR-014", 1, 12, "degC", "(s)");
    assertProblem(rig.problem("age.value + 3 m > 1"), "EXPR-014", 1, 11, "m is metre");
    assertProblem(
        rig.problem("flow.value in [3 bar]"), "EXPR-014", 1, 16, "list element 3 bar (bar)");
  }

  @Test
  void aUnitlessInputAgainstANumberWithAUnit_isEXPR014_namingBoth() {
    assertProblem(
        rig.problem("count.value > 50 %"),
        "EXPR-014",
        1,
        13,
        "count.value (no unit)",
        "50 % (%)",
        "count.value has no unit");
    assertProblem(rig.problem("count.value == humidity.value"), "EXPR-014", 1, 13, "no unit", "%");
  }

  @Test
  void multiplyingTwoUnits_isEXPR015() {
    assertProblem(
        rig.problem("flow.value * 2 degC > 3"),
        "EXPR-015",
        1,
        12,
        "flow.value (degC)",
        "2 degC (degC)");
    assertProblem(rig.problem("loop.value / amps.value > 3"), "EXPR-015", 1, 12, "divide");
  }

  @Test
  void divisionByALiteralZero_isEXPR016() {
    assertProblem(rig.problem("flow.value / 0 > 1"), "EXPR-016", 1, 14, "division by zero");
    assertProblem(rig.problem("flow.value / (1 - 1) > 1"), "EXPR-016", 1, 14, "(1 - 1)");
  }

  @Test
  void unresolvedSymbol_isEXPR017() {
    assertProblem(rig.problem("heating"), "EXPR-017", 1, 1, "'heating' is not a declared input");
    assertProblem(rig.problem("heating == cooling"), "EXPR-017", 1, 1, "neither");
    assertProblem(rig.problem("label.value == foo"), "EXPR-017", 1, 16, "\"foo\"");
    assertProblem(rig.problem("flow.value > high"), "EXPR-017", 1, 14, "'high'");
    assertProblem(rig.problem("heating in [mode.value]"), "EXPR-017", 1, 1, "left side of in");
  }

  @Test
  void severalProblems_areAllReported_inSourceOrder() {
    List<ExprProblem> problems =
        rig.problems("flwo.value > 3 and mode.value == heatng or flow.value > 30 s");
    assertThat(problems)
        .extracting(ExprProblem::code)
        .containsExactly("EXPR-005", "EXPR-010", "EXPR-014");
    assertThat(problems).extracting(ExprProblem::column).containsExactly(1, 34, 55);
  }

  @Test
  void aSyntaxErrorInOneOperand_doesNotHideProblemsInTheOthers() {
    List<ExprProblem> problems =
        rig.problems("flow.value > > 3 and (mode.value == ) or flow.quality == stael");
    assertThat(problems)
        .extracting(ExprProblem::code)
        .containsExactly("EXPR-003", "EXPR-003", "EXPR-011");
  }

  @Test
  void problemsInAMultiLineSource_haveTheirLineAndColumn() {
    String source =
        """
        demand.value == false
          and flow.value > 35 degc
          and mode.value in [heating,
                             cooling, auto]
        """;
    List<ExprProblem> problems = rig.problems(source);
    assertThat(problems).hasSize(2);
    assertProblem(problems.get(0), "EXPR-004", 2, 23, "'degc'");
    assertProblem(problems.get(1), "EXPR-010", 4, 31, "'auto'");
  }

  @Test
  void crLfAndCrLineEnds_countAsOneLineBreak() {
    assertProblem(rig.problem("demand.value\r\nand flwo.value > 1"), "EXPR-005", 2, 5);
    assertProblem(rig.problem("demand.value\rand flwo.value > 1"), "EXPR-005", 2, 5);
  }

  @Test
  void aLexicalError_isNotReportedAgainAsASyntaxError() {
    assertThat(rig.problems("flow.value # 3 > 1"))
        .extracting(ExprProblem::code)
        .containsExactly("EXPR-001");
    assertThat(rig.problems("label.value == \"abc"))
        .extracting(ExprProblem::code)
        .containsExactly("EXPR-002");
  }

  @Test
  void aFailedOperand_doesNotCascade() {
    // the unknown input makes its comparison fail; "and" does not then complain about it
    assertThat(rig.problems("not (flwo.value + 1 > 2) and demand.value"))
        .extracting(ExprProblem::code)
        .containsExactly("EXPR-005");
  }

  @Test
  void compiled_holdsAConditionExactlyWhenThereIsNoProblem() {
    assertThatThrownBy(() -> new Compiled(Optional.empty(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    Compiled bad = rig.compile("flow > 3");
    assertThat(bad.condition()).isEmpty();
    assertThat(bad.problems()).isNotEmpty();
    assertThat(bad.problems().get(0).toString()).startsWith("1:1: EXPR-006 ");
  }

  @Test
  void everyCodeOfTheCatalogue_isTestedHere() {
    // keeps this class in step with ProblemCode: a new code needs a test above
    assertThat(ProblemCode.values())
        .extracting(ProblemCode::code)
        .containsExactly(
            "EXPR-001",
            "EXPR-002",
            "EXPR-003",
            "EXPR-004",
            "EXPR-005",
            "EXPR-006",
            "EXPR-007",
            "EXPR-008",
            "EXPR-009",
            "EXPR-010",
            "EXPR-011",
            "EXPR-012",
            "EXPR-013",
            "EXPR-014",
            "EXPR-015",
            "EXPR-016",
            "EXPR-017");
  }
}
