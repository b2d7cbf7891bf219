package io.sentinel.testing;

import io.sentinel.engine.EngineLimits;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A site's whole fixture table: load the site, load every fixture file, run every case. */
public final class FixtureSuite {
  private FixtureSuite() {}

  /** Problems stop the suite before any case runs; otherwise every case has a result. */
  public record Report(
      List<Problem> problems, List<FixtureRunner.CaseResult> results, Optional<RuleSet> ruleSet) {
    public long passed() {
      return results.stream().filter(FixtureRunner.CaseResult::passed).count();
    }

    public long failed() {
      return results.size() - passed();
    }

    public boolean hasErrors() {
      return problems.stream().anyMatch(Problem::isError);
    }

    public Coverage coverage() {
      Coverage c = new Coverage();
      results.forEach(c::record);
      return c;
    }
  }

  public static Report run(Path siteDir, EngineLimits limits) {
    Site.Loaded loaded = Site.load(siteDir);
    if (loaded.site().isEmpty()) {
      return new Report(loaded.problems(), List.of(), Optional.empty());
    }
    RuleSet ruleSet = loaded.site().get().ruleSet();
    Problems problems = new Problems();
    loaded.problems().forEach(problems::add);
    List<FixtureCase> cases = new ArrayList<>();
    Optional<Path> tests = Site.testsDir(siteDir);
    if (tests.isEmpty()) {
      problems.error(
          FixtureCodes.FIX_010,
          siteDir.toString(),
          0,
          "",
          "no tests/ folder (nor rules/tests/) with fixture tables");
    }
    List<Path> files = tests.map(Site::yamlFiles).orElse(List.of());
    // A table that runs nothing is green by accident (a misnamed folder, an emptied file): say so.
    if (tests.isPresent() && files.isEmpty()) {
      problems.error(
          FixtureCodes.FIX_011,
          relative(siteDir, tests.get()),
          0,
          "",
          "the tests folder holds no fixture tables (*.yaml): nothing would be tested");
    }
    for (Path file : files) {
      String name = relative(siteDir, file);
      long errorsBefore = errors(problems);
      List<FixtureCase> fromFile = FixtureLoader.load(name, Site.read(file), ruleSet, problems);
      if (fromFile.isEmpty() && errors(problems) == errorsBefore) {
        problems.error(
            FixtureCodes.FIX_012,
            name,
            1,
            "",
            "this fixture table has no cases: nothing in it is tested");
      }
      cases.addAll(fromFile);
    }
    if (problems.hasErrors()) {
      return new Report(problems.sorted(), List.of(), Optional.of(ruleSet));
    }
    FixtureRunner runner = new FixtureRunner(ruleSet, limits);
    List<FixtureRunner.CaseResult> results = cases.stream().map(runner::run).toList();
    return new Report(problems.sorted(), results, Optional.of(ruleSet));
  }

  private static long errors(Problems problems) {
    return problems.sorted().stream().filter(Problem::isError).count();
  }

  private static String relative(Path siteDir, Path file) {
    return siteDir
        .toAbsolutePath()
        .normalize()
        .relativize(file.toAbsolutePath().normalize())
        .toString();
  }
}
