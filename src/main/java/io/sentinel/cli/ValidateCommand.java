package io.sentinel.cli;

import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.sentinel.wire.Payloads;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "validate",
    description =
        "Load-time validation of a site or a rule file: every problem with file:line; exit 1 on an error.")
public final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR|FILE", description = "a site folder, or one rule file of a site")
  Path target;

  @Option(
      names = "--site",
      description =
          "the site whose registry a single rule file is checked against (default: found above the file)")
  Optional<Path> site;

  /** How the problems are printed: for a person, for a program, or for a GitHub Actions log. */
  enum Format {
    TEXT,
    JSON,
    GITHUB
  }

  @Option(
      names = "--format",
      paramLabel = "text|json|github",
      description =
          "text (default): a line per problem and a summary; json: one JSON object; github:"
              + " GitHub Actions annotations (::error file=F,line=L,title=ID::message)",
      defaultValue = "text")
  Format format;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (!Files.exists(target)) {
      spec.commandLine().getErr().println("sentinel validate: " + target + " does not exist");
      return 2;
    }
    Site.Loaded loaded;
    Path base;
    if (Files.isDirectory(target)) {
      base = target;
      loaded = Site.load(target);
    } else {
      Optional<Path> dir = site.or(() -> siteAbove(target));
      if (dir.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "sentinel validate: no site (points.yaml) above " + target + "; pass --site DIR");
        return 2;
      }
      base = dir.get();
      loaded = Site.load(dir.get(), List.of(target));
    }
    List<Problem> problems = loaded.problems();
    int rules = loaded.site().map(s -> s.ruleSet().rules().size()).orElse(0);
    boolean valid = problems.stream().noneMatch(Problem::isError);
    switch (format) {
      case JSON -> out.println(Payloads.validationJson("site", rules, problems).encode());
      case GITHUB -> {
        problems.forEach(p -> out.println(GithubAnnotation.of(p, base)));
        summary(out, problems, rules);
      }
      case TEXT -> {
        problems.forEach(p -> out.println(p.format()));
        summary(out, problems, rules);
      }
    }
    return valid ? 0 : 1;
  }

  private static void summary(PrintWriter out, List<Problem> problems, int rules) {
    long errors = problems.stream().filter(Problem::isError).count();
    long warnings = problems.size() - errors;
    if (errors > 0) {
      out.println(errors + " error(s), " + warnings + " warning(s)");
    } else {
      out.println("valid: " + rules + " rule(s), " + warnings + " warning(s)");
    }
  }

  private static Optional<Path> siteAbove(Path file) {
    for (Path p = file.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
      if (Site.registryFile(p).isPresent()) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
