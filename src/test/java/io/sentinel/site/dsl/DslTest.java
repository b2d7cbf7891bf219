package io.sentinel.site.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.site.Site;
import io.sentinel.testing.FixtureTests;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The rule DSL of seed 001 on the native engine: the seed's three examples as the venue site runs
 * them, a fixture per operator and built-in, the three deciding keys of a conflict, and the load
 * errors.
 */
class DslTest {
  private static final Path VENUE = Path.of("seeds/venue");
  private static final Path OPERATORS = Path.of("src/test/resources/sites/dsl");

  private static Stream<DynamicTest> cases(Path site) {
    return FixtureTests.cases(FixtureTests.report(site));
  }

  @TestFactory
  Stream<DynamicTest> theSeedExamplesRunAsWritten() {
    return cases(VENUE);
  }

  @TestFactory
  Stream<DynamicTest> everyOperatorAndBuiltInAndEveryDecidingKey() {
    return cases(OPERATORS);
  }

  @Test
  void theVenueSite_validates_withAnInstancePerCourt() {
    var run = CliRunner.run("validate", VENUE.toString());
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output()).contains("valid: 5 rule(s), 0 warning(s)");
    var site = Site.load(VENUE).site().orElseThrow();
    assertThat(site.ruleSet().rules())
        .extracting(Rule::id)
        .contains(
            "tournament-period-end@court.1", "tournament-period-end@court.3", "cell4-estop-hold");
    assertThat(site.ruleSet().rule("cell4-estop-hold").orElseThrow().band()).isEqualTo(Band.SAFETY);
    assertThat(site.ruleSet().rule("gym-entrance-soft-open").orElseThrow().band())
        .isEqualTo(Band.AMBIENT);
    assertThat(site.ruleSet().rule("tournament-period-end@court.2").orElseThrow().band())
        .isEqualTo(Band.ORCHESTRATION);
  }

  @Test
  void theVenueFixturesCoverEveryConventionalCase() {
    var run = CliRunner.run("test", VENUE.toString(), "--coverage");
    assertThat(run.output()).contains("coverage: every rule has every conventional case");
  }

  @Test
  void loadErrors_nameTheFileLineRuleAndBothUnits() {
    var run = CliRunner.run("validate", "src/test/resources/sites/dsl-violations");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "rules/bad.yaml:6: error [EXPR-014] rule unit-mismatch: cannot compare p.current (mA) with 4 V (V): the units mA and V are incompatible")
        .contains(
            "rules/bad.yaml:19: error [DSL-025] rule set-with-wrong-unit: cannot set p.volts (V) to 4 mA (mA)")
        .contains(
            "rules/bad.yaml:30: error [YAML-015] rule unknown-key: rule: unknown key 'colour'")
        .contains(
            "rules/bad.yaml:33: error [DSL-002] rule bad-priority: priority is a whole number from 1 to 100")
        .contains(
            "rules/bad.yaml:47: error [DSL-015] rule regex-too-long: matches: the expression is 130 characters; the limit is 128")
        .contains(
            "rules/bad.yaml:59: error [DSL-035] rule wildcard-matches-nothing: output light.court.*.scorebar matches no point")
        .contains(
            "rules/bad.yaml:66: error [DSL-041] zone court.* matches none of the site's zones")
        .contains(
            "rules/bad.yaml:75: error [DSL-012] rule two-operators: a condition has one operator")
        .contains(
            "rules/bad.yaml:91: error [DSL-031] rule reset-not-bool: hold_until names a bool point")
        .contains("9 error(s)");
  }

  @Test
  void anUnknownKeyFailsTheWholeRuleSet_nothingIsHalfLoaded() {
    Site.Loaded loaded = Site.load(Path.of("src/test/resources/sites/dsl-violations"));
    assertThat(loaded.site()).isEmpty();
  }
}
