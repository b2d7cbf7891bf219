package io.sentinel.derived;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.engine.EngineLimits;
import io.sentinel.testing.FixtureSuite;
import io.sentinel.testing.FixtureTests;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every derived kind and the watchdog as fixtures, including the edges seeds 003 and 004 pin: the
 * consuming count, the restarting sequence, absence once per quiet period, half-open windows, and
 * seed 000's physical loop held by hysteresis where a plain threshold flaps.
 */
class DerivedFixturesTest {
  private static final Path SITE = Path.of("src/test/resources/sites/derived");
  private static final FixtureSuite.Report REPORT = FixtureSuite.run(SITE, EngineLimits.DEFAULT);

  @TestFactory
  Stream<DynamicTest> everyDerivedKindBehavesAsDocumented() {
    assertThat(REPORT.problems()).isEmpty();
    return FixtureTests.cases(REPORT);
  }

  @Test
  void everyKindHasAFixture() {
    assertThat(REPORT.results().stream().map(r -> r.fixture().name().split(" ")[0]))
        .contains(
            "hysteresis",
            "debounce",
            "rolling_avg",
            "rate",
            "age",
            "count",
            "sequence",
            "absence",
            "dedupe",
            "throttle",
            "the");
  }

  @Test
  void loadErrors_areReportedTogetherWithTheirLines() {
    var run = CliRunner.run("validate", "src/test/resources/sites/derived-violations");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "derived.yaml:2: error [DER-001] derived point a.flag: the registry already has a point with this id")
        .contains(
            "derived.yaml:3: error [DER-005] derived point x.hyst-on-bool: hysteresis needs a number input; a.flag is bool")
        .contains(
            "derived.yaml:4: error [DER-004] derived point x.unknown-input: point 'a.nowhere'")
        .contains(
            "derived.yaml:5: error [DER-009] derived point x.zero-window: window must be longer than zero")
        .contains(
            "derived.yaml:6: error [YAML-020] derived point x.bad-window: window: 'soon' is not a duration")
        .contains(
            "derived.yaml:7: error [DER-006] derived point x.inverted: on_above must be above off_below")
        .contains("derived.yaml:8: error [DER-002] derived point x.no-kind: kind must be one of")
        .contains("derived.yaml:9: error [EXPR-009] derived point x.bad-when when:")
        .contains(
            "derived.yaml:10: error [DER-011] derived point x.fraction: at_most is a whole number")
        .contains(
            "derived.yaml:11: error [YAML-015] derived point x.extra-key: unknown key 'window'")
        .contains(
            "derived.yaml:12: error [DER-010] derived points form a cycle: x.loop-a -> x.loop-b -> x.loop-c -> x.loop-a")
        .contains("11 error(s)");
  }
}
