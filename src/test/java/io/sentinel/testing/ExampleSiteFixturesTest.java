package io.sentinel.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.EngineLimits;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The seed's exit criteria, as the example site's fixtures: run by the test suite exactly as {@code
 * sentinel test .} runs them, one JUnit test per case.
 */
class ExampleSiteFixturesTest {
  private static final FixtureSuite.Report REPORT =
      FixtureSuite.run(Path.of("."), EngineLimits.DEFAULT);

  @TestFactory
  Stream<DynamicTest> everyFixtureCaseOfTheExampleSitePasses() {
    assertThat(REPORT.problems()).isEmpty();
    return FixtureTests.cases(REPORT);
  }

  @Test
  void everyExampleRuleHasTheFiveConventionalCases() {
    assertThat(REPORT.coverage().missing(REPORT.ruleSet().orElseThrow())).isEmpty();
  }

  @Test
  void theFourExtraCasesOfTheSeedArePresent() {
    assertThat(REPORT.results().stream().map(r -> r.fixture().name()))
        .anyMatch(n -> n.startsWith("never leaves warmup while an input is permanently unknown"))
        .anyMatch(n -> n.startsWith("warmup deadline pauses while ingest lags"))
        .anyMatch(n -> n.startsWith("release on input loss actually releases"))
        .anyMatch(n -> n.startsWith("demand unavailable - hold degrades to release at hold_max"))
        .anyMatch(
            n ->
                n.startsWith(
                    "warmup - asserts fail_value at once, releases only when every input is live"));
  }
}
