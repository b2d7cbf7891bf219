package io.sentinel.cli;

import io.sentinel.engine.EngineLimits;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Timeline;
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
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "replay",
    description =
        "Replays the log's history (its observations, starts, revisions, overrides and ingest lag)"
            + " through the engine and diffs its commands and claims against the log: matched, only"
            + " in replay, only in history (docs/replay.md). Exit 0: no difference; 1:"
            + " differences; 2: the window or the rules cannot be read.")
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
      description = "replace the rules from the window's start with this site's rules")
  Optional<Path> rules;

  @Option(
      names = "--revision",
      paramLabel = "N",
      description = "replace the rules from the window's start with stored revision N")
  Optional<Long> revision;

  @Option(
      names = "--site",
      paramLabel = "DIR",
      description =
          "the site folder: its name and site.yaml, and its rules where the log names no"
              + " revision (default: the --rules DIR, else .)")
  Optional<Path> siteOption;

  private Path site;

  @Option(
      names = "--lead",
      description =
          "where the log records no start before --from: a cold start this long before it"
              + " (warmup), comparing only from --from (default: ${DEFAULT-VALUE})",
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

  @Option(
      names = {"--verbose", "--matches"},
      description = "list the matched commands and claims too")
  boolean verbose;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rules.isPresent() && revision.isPresent()) {
      err.println("sentinel replay: give --rules DIR or --revision N, not both");
      return 2;
    }
    site = siteOption.or(() -> rules).orElse(Path.of("."));
    Optional<Site> folder = load(site, err);
    if (folder.isEmpty()) {
      return 2;
    }
    Optional<RuleSet> replacement = Optional.empty();
    if (rules.isPresent()) {
      Optional<Site> r = rules.get().equals(site) ? folder : load(rules.get(), err);
      if (r.isEmpty()) {
        return 2;
      }
      replacement = Optional.of(r.get().ruleSet());
    }
    Optional<Duration> leadTime = YamlFile.parseDuration(lead);
    Optional<Duration> slack = YamlFile.parseDuration(tolerance);
    if (leadTime.isEmpty() || slack.isEmpty()) {
      err.println("sentinel replay: --lead and --tolerance take a duration such as 30s or 5m");
      return 2;
    }
    LogWindow window;
    Instant start;
    Instant end;
    Map<Long, RuleSet> stored = new TreeMap<>();
    try {
      Optional<Instant> f = from.map(Instant::parse);
      Optional<Instant> t = to.map(Instant::parse);
      if (log.isPresent()) {
        if (!Files.isRegularFile(log.get())) {
          err.println("sentinel replay: " + log.get() + " is not a file");
          return 2;
        }
        if (revision.isPresent()) {
          err.println("sentinel replay: --revision reads the database; with --log give --rules");
          return 2;
        }
        window = PassLogJson.read(log.get());
        start = f.or(window::from).or(() -> first(window.observations())).orElseThrow();
        end = t.or(window::to).or(() -> last(window.observations())).orElseThrow();
      } else if (f.isPresent() && t.isPresent()) {
        start = f.get();
        end = t.get();
        try (Databases dbs = database.open()) {
          History history = dbs.history();
          Instant begin = history.lastStart(start).orElse(start.minus(leadTime.get()));
          out.println("reading " + dbs.url() + " from " + begin + " to " + end);
          window = history.window(folder.get().name(), begin, start, end);
          ReplayRules byRevision = new ReplayRules(dbs.revisions(), site);
          Timeline timeline = window.timeline().orElseThrow();
          for (Timeline.Start s : timeline.starts()) {
            resolve(byRevision, s.revision(), stored);
          }
          for (Timeline.Activation a : timeline.activations()) {
            resolve(byRevision, a.revision(), stored);
          }
          if (revision.isPresent()) {
            replacement = Optional.of(byRevision.of(revision.get()));
          }
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
    } catch (PassLogFormatException | ReplayRules.Unreadable e) {
      err.println("sentinel replay: " + e.getMessage());
      return 2;
    }
    Replay.Rules byRevision =
        n -> Optional.ofNullable(stored.get(n)).orElseGet(() -> folder.get().ruleSet());
    Timeline timeline = window.timeline().orElse(Timeline.coldStart(start.minus(leadTime.get())));
    Replay.Outcome outcome =
        new Replay(byRevision, replacement, EngineLimits.DEFAULT)
            .run(window.observations(), timeline, end);
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
    RuleSet bands = replacement.orElseGet(() -> byRevision.of(timeline.starts().get(0).revision()));
    var commands =
        ReplayDiff.compare(
            History.withBands(window.commands(), id -> bands.rule(id).map(Rule::band)),
            outcome.commands(),
            start,
            end,
            slack.get());
    var claims = ReplayDiff.compare(window.claims(), outcome.claims(), start, end, slack.get());
    out.println(
        "replayed "
            + window.observations().size()
            + " observations from "
            + start
            + " to "
            + end
            + " with "
            + rules
                .map(r -> "the rules of " + r)
                .or(() -> revision.map(n -> "revision " + n))
                .orElse(stored.isEmpty() ? "the rules of " + site : "the rules that ran")
            + describe(timeline));
    commands.lines(verbose).forEach(out::println);
    boolean claimsCompared = log.isEmpty();
    if (claimsCompared) {
      claims.lines(verbose, "claims: ").forEach(out::println);
    }
    return commands.noDifference() && (!claimsCompared || claims.noDifference()) ? 0 : 1;
  }

  private static String describe(Timeline timeline) {
    long starts = timeline.starts().stream().filter(Timeline.Start::recorded).count();
    if (starts == 0 && timeline.activations().isEmpty() && timeline.overrides().isEmpty()) {
      return "";
    }
    return " ("
        + starts
        + " start(s), "
        + timeline.activations().size()
        + " activation(s), "
        + timeline.overrides().size()
        + " override request(s), "
        + timeline.lag().size()
        + " lag change(s))";
  }

  private static void resolve(ReplayRules rules, long revision, Map<Long, RuleSet> into)
      throws Exception {
    if (revision != 0 && !into.containsKey(revision)) {
      into.put(revision, rules.of(revision));
    }
  }

  private static Optional<Site> load(Path dir, PrintWriter err) {
    Site.Loaded loaded = Site.load(dir);
    if (loaded.site().isEmpty()) {
      loaded.problems().stream().filter(Problem::isError).forEach(p -> err.println(p.format()));
      err.println("sentinel replay: the rules in " + dir + " have errors");
    }
    return loaded.site();
  }

  private static Optional<Instant> first(List<LoggedObservation> all) {
    return all.stream().map(o -> o.observation().receivedAt()).min(Instant::compareTo);
  }

  private static Optional<Instant> last(List<LoggedObservation> all) {
    return all.stream().map(o -> o.observation().receivedAt()).max(Instant::compareTo);
  }
}
