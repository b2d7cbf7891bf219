package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Seed 000, "Load-time validation": a fixture rule set containing each listed violation fails the
 * build with the right message, all in one run, the errors marked as errors.
 */
class ValidateCommandTest {
  private static final String VIOLATIONS = "src/test/resources/sites/violations";

  @Test
  void exampleSite_isValid() {
    CliRunner run = CliRunner.run("validate", ".");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output()).contains("valid: 6 rule(s), 0 warning(s)");
  }

  @Test
  void violations_allReportedInOneRun_withFileLineAndExit1() {
    CliRunner run = CliRunner.run("validate", VIOLATIONS);
    String out = run.output();
    assertThat(run.exit()).isEqualTo(1);
    assertThat(out)
        // every input point exists in the registry
        .contains(
            "rules/violations.yaml:5: error [RULE-011] rule unknown-input: input t: point 'plant.nowhere' is not in the registry")
        // when parses under the shared grammar ...
        .contains("rules/violations.yaml:14: error [EXPR-003] rule bad-when")
        // ... and references only declared inputs
        .contains(
            "rules/violations.yaml:22: error [EXPR-005] rule undeclared-name: when: unknown input 'flow'")
        // units are checked, naming both
        .contains("rules/violations.yaml:30: error [EXPR-014] rule unit-mismatch")
        .contains("mA and V")
        // claim targets are out or inout, values pass type, enum and range
        .contains("rules/violations.yaml:40: error [RULE-051] rule claims-an-input")
        .contains("rules/violations.yaml:50: error [VAL-001] rule claim-wrong-type")
        .contains(
            "rules/violations.yaml:60: error [VAL-004] rule claim-not-in-enum: claim value for point plant.mode: 'defrost' is not one of heat, cool")
        .contains(
            "rules/violations.yaml:70: error [VAL-003] rule claim-out-of-range: claim value for point plant.valve: 150 is outside the range [0, 100]")
        // on_input_loss and warmup are present on every rule
        .contains("error [RULE-042] rule no-input-loss-policy: on_input_loss is missing")
        .contains("error [RULE-046] rule no-warmup: warmup is missing")
        // interlocks carry interlock_class and, if fail_safe, a fail_value
        .contains("error [RULE-070] rule interlock-without-class")
        .contains("error [RULE-073] rule fail-safe-without-value")
        // same band, same point, different values: a warning, not an error
        .contains(
            "rules/violations.yaml:125: warning [RULE-080] rule same-band-b: claims plant.mode = heat while rule same-band-a")
        // two interlocks claiming one point with different values: an error
        .contains("rules/violations.yaml:147: error [RULE-081] rule interlock-b")
        // ... and so do two fail_safe interlocks whose claims agree but whose fail_values do not
        .contains(
            "rules/violations.yaml:219: error [RULE-081] rule valve-closes-on-alarm: asserts (fail_value) plant.valve = 100 while rule valve-closes-when-hot (rules/violations.yaml:207) claims it = 0 in the same band interlock: interlocks must agree")
        // actions have cooldowns
        .contains("error [RULE-061] rule action-without-cooldown: action notify has no cooldown")
        // unknown keys, duplicate ids, malformed durations, unbounded hold
        .contains(
            "rules/violations.yaml:168: error [YAML-015] rule unknown-key: rule: unknown key 'on_input_los' (did you mean 'on_input_loss'?)")
        .contains(
            "rules/violations.yaml:171: error [RULE-006] rule same-band-a: duplicate rule id; first defined at rules/violations.yaml:109")
        .contains(
            "rules/violations.yaml:185: error [YAML-020] rule bad-duration: expires_in: '20 minutes' is not a duration")
        .contains("error [RULE-040] rule hold-without-bound: on_input_loss: hold needs a bound")
        .contains("20 error(s), 1 warning(s)");
    // The failed input is reported once, not echoed by the expression that uses it.
    assertThat(out).doesNotContain("this rule declares no inputs");
  }

  /**
   * Issue 18: the departure from seed 000's quality trigger example (input loss decides first) is
   * said by validate itself, naming file, line and rule, and only warned: the rule is valid.
   */
  @Test
  void semanticsSite_aQualityTriggerThatOnlyReachesInputLoss_isWarnedWithFileLineAndRule() {
    CliRunner run = CliRunner.run("validate", "src/test/resources/sites/semantics");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .containsPattern(
            "rules/triggers\\.yaml:\\d+: warning \\[RULE-029\\] rule cellar-sensor-lamp: trigger.to:"
                + " bad, unavailable is input loss for this rule");
  }

  @Test
  void singleFile_isCheckedAgainstTheRegistryAboveIt() {
    CliRunner run = CliRunner.run("validate", VIOLATIONS + "/rules/violations.yaml");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output()).contains("[RULE-081]");
  }

  @Test
  void missingTarget_isAUsageError() {
    CliRunner run = CliRunner.run("validate", "no/such/site");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.output()).contains("no/such/site does not exist");
  }
}
