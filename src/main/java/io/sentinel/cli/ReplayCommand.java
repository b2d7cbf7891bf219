package io.sentinel.cli;

import io.sentinel.engine.EngineLimits;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.store.Databases;
import io.sentinel.store.History;
import io.sentinel.testing.Replay;
import io.sentinel.testing.ReplayDiff;
import io.sentinel.wire.PassLogFormatException;
import io.sentinel.wire.PassLogJson;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "replay",
    description =
        "Replays logged observations through a rule set on the engine and diffs its commands"
            + " against the commands in the log: matched, only in replay, only in history."
            + " Exit 0: no difference; 1: differences; 2: the window or the rules cannot be read.")
public final class ReplayCommand implements Callable<Integer> {
  @Option(names = "--from", description = "start of the window (ISO-8601 instant)")
  Optional<String> from;

  @Option(names = "--to", description = "end of the window (ISO-8601 instant)")
  Optional<String> to;

  @Option(
      names = "--log",
      paramLabel = "FILE.ndjson",
      description = "an exported window instead of the database")
  Optional<Path> log;

  @Option(
      names = "--rules",
      paramLabel = "DIR",
      description = "the site whose rules to replay (default: ${DEFAULT-VALUE})",
      defaultValue = ".")
  Path rules;

  @Option(
      names = "--lead",
      description =
          "feed observations from this long before --from (warmup), comparing only from --from"
              + " (default: ${DEFAULT-VALUE})",
      defaultValue = "0s")
  String lead;

  @Option(
      names = "--tolerance",
      description =
          "how far apart in time a history and a replay command may be and still match (default:"
              + " ${DEFAULT-VALUE})",
      defaultValue = "1s")
  String tolerance;

  @Mixin DatabaseOption database;

  @Option(names = "--matches", description = "list the matched commands too")
  boolean matches;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Site.Loaded loaded = Site.load(rules);
    if (loaded.site().isEmpty()) {
      loaded.problems().stream().filter(Problem::isError).forEach(p -> err.println(p.format()));
      err.println("sentinel replay: the rules in " + rules + " have errors");
      return 2;
    }
    RuleSet ruleSet = loaded.site().get().ruleSet();
    Optional<Duration> leadTime = YamlFile.parseDuration(lead);
    Optional<Duration> slack = YamlFile.parseDuration(tolerance);
    if (leadTime.isEmpty() || slack.isEmpty()) {
      err.println("sentinel replay: --lead and --tolerance take a duration such as 30s or 5m");
      return 2;
    }
    LogWindow window;
    Instant start;
    Instant end;
    try {
      Optional<Instant> f = from.map(Instant::parse);
      Optional<Instant> t = to.map(Instant::parse);
      if (log.isPresent()) {
        if (!Files.isRegularFile(log.get())) {
          err.println("sentinel replay: " + log.get() + " is not a file");
          return 2;
        }
        window = PassLogJson.read(log.get());
        start = f.or(window::from).or(() -> first(window.observations())).orElseThrow();
        end = t.or(window::to).or(() -> last(window.observations())).orElseThrow();
      } else if (f.isPresent() && t.isPresent()) {
        start = f.get();
        end = t.get();
        try (Databases dbs = database.open()) {
          out.println(
              "reading " + dbs.url() + " from " + start.minus(leadTime.get()) + " to " + end);
          window =
              dbs.history()
                  .window(loaded.site().get().name(), start.minus(leadTime.get()), start, end);
        }
      } else {
        err.println("sentinel replay: give --from and --to (the database), or --log FILE.ndjson");
        return 2;
      }
    } catch (DateTimeParseException e) {
      err.println(
          "sentinel replay: --from and --to take ISO-8601 instants (2026-11-02T05:00:00Z): "
              + e.getParsedString());
      return 2;
    } catch (PassLogFormatException e) {
      err.println("sentinel replay: " + e.getMessage());
      return 2;
    }
    Replay.Outcome outcome =
        new Replay(ruleSet, EngineLimits.DEFAULT)
            .run(window.observations(), start.minus(leadTime.get()), end);
    outcome
        .skipped()
        .forEach(
            (point, n) ->
                out.println(
                    "skipped "
                        + n
                        + " observation(s) of "
                        + point
                        + ": not a point of these rules, or a value of another type"));
    ReplayDiff diff =
        ReplayDiff.compare(
            History.withBands(window.commands(), id -> ruleSet.rule(id).map(Rule::band)),
            outcome.commands(),
            start,
            end,
            slack.get());
    out.println(
        "replayed "
            + window.observations().size()
            + " observations from "
            + start
            + " to "
            + end
            + " with the rules of "
            + rules);
    diff.lines(matches).forEach(out::println);
    return diff.noDifference() ? 0 : 1;
  }

  private static Optional<Instant> first(List<LoggedObservation> all) {
    return all.stream().map(o -> o.observation().receivedAt()).min(Instant::compareTo);
  }

  private static Optional<Instant> last(List<LoggedObservation> all) {
    return all.stream().map(o -> o.observation().receivedAt()).max(Instant::compareTo);
  }
}
