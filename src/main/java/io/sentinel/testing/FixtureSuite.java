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
    for (Path file : tests.map(Site::yamlFiles).orElse(List.of())) {
      String name =
          siteDir
              .toAbsolutePath()
              .normalize()
              .relativize(file.toAbsolutePath().normalize())
              .toString();
      cases.addAll(FixtureLoader.load(name, Site.read(file), ruleSet, problems));
    }
    if (problems.hasErrors()) {
      return new Report(problems.sorted(), List.of(), Optional.of(ruleSet));
    }
    FixtureRunner runner = new FixtureRunner(ruleSet, limits);
    List<FixtureRunner.CaseResult> results = cases.stream().map(runner::run).toList();
    return new Report(problems.sorted(), results, Optional.of(ruleSet));
  }
}
