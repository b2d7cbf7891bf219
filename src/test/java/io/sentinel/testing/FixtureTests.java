package io.sentinel.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.EngineLimits;
import io.sentinel.site.yaml.Problem;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * A site's fixture table as JUnit tests: one per case, exactly as {@code sentinel test} runs it.
 */
public final class FixtureTests {
  private FixtureTests() {}

  public static FixtureSuite.Report report(Path site) {
    FixtureSuite.Report report = FixtureSuite.run(site, EngineLimits.DEFAULT);
    assertThat(report.problems()).as("load problems of " + site).noneMatch(Problem::isError);
    return report;
  }

  public static Stream<DynamicTest> cases(FixtureSuite.Report report) {
    return report.results().stream()
        .map(
            r ->
                DynamicTest.dynamicTest(
                    r.fixture().where() + " " + r.fixture().name(),
                    () -> assertThat(r.failures()).as(r.fixture().name()).isEmpty()));
  }
}
