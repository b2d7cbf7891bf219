package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestCommandTest {
  @Test
  void exampleSite_allCasesPass_withALinePerCaseAndASummary() {
    CliRunner run = CliRunner.run("test", ".", "--coverage");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("PASS rules/tests/pump-run-on.yaml:3 condition true")
        .contains("coverage: every rule has every conventional case")
        .containsPattern("(?m)^\\d+ passed, 0 failed$");
  }

  @Test
  void failingCase_isReportedWithWhereAndWhy_andExits1(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    addFailingCase(site);
    CliRunner run = CliRunner.run("test", site.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains("FAIL tests/wrong.yaml:1 expects the wrong thing")
        .contains(
            "at 0s (tests/wrong.yaml:1): expected claims {boiler.ch1.pump=true}, the rule holds {}")
        .containsPattern("(?m)^\\d+ passed, 1 failed$");
  }

  @Test
  void coverage_namesTheMissingConventionalCases(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    try (var files = Files.list(site.resolve("tests"))) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.writeString(
        site.resolve("tests/one.yaml"),
        """
        - rule: pump-run-on
          given:
            boiler.ch1.flow-temp: { value: 42 }
            boiler.ch1.demand: { value: false }
          expect_claims:
            - { point: boiler.ch1.pump, value: true }
        """);
    CliRunner run = CliRunner.run("test", site.toString(), "--coverage");
    assertThat(run.output())
        .contains(
            "coverage: rule pump-run-on lacks condition false, input flow stale, input demand stale,"
                + " input flow unavailable, input demand unavailable, warmup")
        .contains("coverage: rule door-open-alert lacks condition true");
  }

  @Test
  void badFixture_isAProblemWithLine_notACrash(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    Files.writeString(
        site.resolve("tests/bad.yaml"),
        """
        - rule: pump-run-on
          given:
            boiler.ch1.flow-temp: { value: hot }
          expect_claimz: []
        """);
    CliRunner run = CliRunner.run("test", site.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "tests/bad.yaml:3: error [VAL-002] rule pump-run-on: value for point boiler.ch1.flow-temp: expected a number in degC, found 'hot'")
        .contains("tests/bad.yaml:4: error [YAML-015]")
        .contains("fixtures not run");
  }

  /** A table that runs nothing must not be green: a misnamed folder or an emptied file. */
  @Test
  void missingTestsFolder_exits1AndSaysSo(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    emptyTests(site);
    Files.delete(site.resolve("tests"));
    CliRunner run = CliRunner.run("test", site.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains("error [FIX-010] no tests/ folder (nor rules/tests/) with fixture tables")
        .contains("fixtures not run");
  }

  @Test
  void emptyTestsFolder_exits1AndSaysSo(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    emptyTests(site);
    Files.writeString(site.resolve("tests/README.txt"), "not a fixture table");
    CliRunner run = CliRunner.run("test", site.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "tests: error [FIX-011] the tests folder holds no fixture tables (*.yaml): nothing would"
                + " be tested")
        .contains("fixtures not run");
  }

  @Test
  void fixtureTableWithNoCases_exits1NamingTheFile(@TempDir Path site) throws Exception {
    copyExampleSite(site);
    Files.writeString(site.resolve("tests/empty.yaml"), "# cases to come\n[]\n");
    Files.writeString(site.resolve("tests/blank.yaml"), "");
    CliRunner run = CliRunner.run("test", site.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "tests/empty.yaml:1: error [FIX-012] this fixture table has no cases: nothing in it is"
                + " tested")
        .contains("tests/blank.yaml:1: error [FIX-012]")
        .contains("fixtures not run");
  }

  /**
   * Issue 18 item 1: sentinel test refuses a rule set whose two fail-safe interlocks would assert
   * different values on one point, as validate does, naming file, line and rule, and runs nothing.
   */
  @Test
  void interlocksAssertingDifferentFailValues_failTheTestRun_namingFileLineAndRule() {
    CliRunner run = CliRunner.run("test", "src/test/resources/sites/violations");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "rules/violations.yaml:219: error [RULE-081] rule valve-closes-on-alarm: asserts"
                + " (fail_value) plant.valve = 100 while rule valve-closes-when-hot"
                + " (rules/violations.yaml:207) claims it = 0")
        .contains("fixtures not run")
        .doesNotContainPattern("(?m)^\\d+ passed");
  }

  private static void emptyTests(Path site) throws Exception {
    try (var files = Files.list(site.resolve("tests"))) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
  }

  /**
   * A case of {@code pump-run-on} that fails: {@code tests/wrong.yaml}, "expects the wrong thing".
   */
  static void addFailingCase(Path site) throws Exception {
    Files.writeString(
        site.resolve("tests/wrong.yaml"),
        """
        - name: expects the wrong thing
          rule: pump-run-on
          given:
            boiler.ch1.flow-temp: { value: 20 }
            boiler.ch1.demand: { value: false }
          expect_claims:
            - { point: boiler.ch1.pump, value: true }
        """);
  }

  static void copyExampleSite(Path site) throws Exception {
    Files.createDirectories(site.resolve("rules"));
    Files.createDirectories(site.resolve("tests"));
    Files.copy(Path.of("seeds/points.yaml"), site.resolve("points.yaml"));
    Files.copy(Path.of("seeds/derived.yaml"), site.resolve("derived.yaml"));
    for (String f : new String[] {"boiler.yaml", "door.yaml"}) {
      Files.copy(Path.of("rules", f), site.resolve("rules").resolve(f));
    }
    try (var files = Files.list(Path.of("rules/tests"))) {
      for (Path f : files.toList()) {
        Files.copy(f, site.resolve("tests").resolve(f.getFileName()));
      }
    }
  }
}
