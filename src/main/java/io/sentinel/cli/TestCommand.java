package io.sentinel.cli;

import io.sentinel.engine.EngineLimits;
import io.sentinel.testing.FixtureRunner.CaseResult;
import io.sentinel.testing.FixtureSuite;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "test",
    description =
        "Runs a site's fixture tables: a line per case and 'N passed, N failed'; exit 1 on a failure.")
public final class TestCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", description = "the site folder", defaultValue = ".")
  Path site;

  @Option(names = "--coverage", description = "list each rule that lacks a conventional case")
  boolean coverage;

  @Option(
      names = "--junit",
      paramLabel = "FILE",
      description = "also write the results as JUnit XML (a test case per fixture case) to FILE")
  Optional<Path> junit;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    FixtureSuite.Report report = FixtureSuite.run(site, EngineLimits.DEFAULT);
    if (junit.isPresent()) {
      JunitReport.write(report, junit.get());
    }
    report.problems().forEach(p -> out.println(p.format()));
    if (report.hasErrors()) {
      out.println("fixtures not run: the site or its fixtures have errors");
      return 1;
    }
    for (CaseResult r : report.results()) {
      String head =
          (r.passed() ? "PASS " : "FAIL ") + r.fixture().where() + " " + r.fixture().name();
      out.println(head);
      r.failures().forEach(f -> out.println("     " + f));
    }
    int exit = report.failed() > 0 ? 1 : 0;
    if (coverage) {
      Map<String, List<String>> missing = report.coverage().missing(report.ruleSet().orElseThrow());
      if (missing.isEmpty()) {
        out.println("coverage: every rule has every conventional case");
      } else {
        missing.forEach(
            (rule, cases) ->
                out.println("coverage: rule " + rule + " lacks " + String.join(", ", cases)));
      }
    }
    out.println(report.passed() + " passed, " + report.failed() + " failed");
    return exit;
  }
}
