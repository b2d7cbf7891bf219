package io.sentinel.testing;

import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.RestartState;
import io.sentinel.passlog.ClaimRecord;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.Timeline;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Replays the log's history through the engine (seed 000: "take a window of real observations from
 * the log, run the rule set against it, and diff the claims against what actually happened";
 * docs/replay.md): the observations at the instants the gateway took them, and each thing the log
 * recorded besides ({@link Timeline}) at its instant: every start a cold start with what it took
 * back, every activation with the revision's own rules, every operator override, ingest lag as it
 * was. A replacement rule set runs from the replay's first start in place of every revision.
 */
public final class Replay {
  /** The rule set of a stored revision (0: the site's files, when the log names none). */
  @FunctionalInterface
  public interface Rules {
    RuleSet of(long revision);
  }

  private final Rules rules;
  private final Optional<RuleSet> replacement;
  private final EngineLimits limits;

  /** One rule set throughout (an exported window: one cold start, no activation). */
  public Replay(RuleSet ruleSet, EngineLimits limits) {
    this(revision -> ruleSet, Optional.empty(), limits);
  }

  public Replay(Rules rules, Optional<RuleSet> replacement, EngineLimits limits) {
    this.rules = rules;
    this.replacement = replacement;
    this.limits = limits;
  }

  /**
   * What a replay produced: the commands, the claim changes, and the observations it could not feed
   * (a point the rule set's registry lacks, or a value of the wrong type), counted per point.
   */
  public record Outcome(
      List<CommandIntent> commands, List<ClaimRecord> claims, Map<String, Integer> skipped) {
    public Outcome {
      commands = List.copyOf(commands);
      claims = List.copyOf(claims);
      skipped = Map.copyOf(skipped);
    }
  }

  /**
   * A cold start at {@code start}, the observations received up to {@code end}, then time to it.
   */
  public Outcome run(List<LoggedObservation> observations, Instant start, Instant end) {
    return run(observations, Timeline.coldStart(start), end, e -> {});
  }

  /** As {@link #run(List, Instant, Instant)}, after {@code prepare} has had the first session. */
  public Outcome run(
      List<LoggedObservation> observations,
      Instant start,
      Instant end,
      Consumer<ReplaySession> prepare) {
    return run(observations, Timeline.coldStart(start), end, prepare);
  }

  /**
   * The timeline's history from its first start to {@code end}; a replacement rule set runs from
   * that first start on (the start the window's state grew from), in place of every revision.
   */
  public Outcome run(List<LoggedObservation> observations, Timeline timeline, Instant end) {
    return run(observations, timeline, end, e -> {});
  }

  private record Step(Instant at, int order, long seq, Consumer<Run> action) {}

  private Outcome run(
      List<LoggedObservation> observations,
      Timeline timeline,
      Instant end,
      Consumer<ReplaySession> prepare) {
    Instant begin = timeline.starts().get(0).at();
    List<Step> steps = new ArrayList<>();
    // At one instant: a start, then an operator's request, the observations (the pass that takes
    // them), an activation (after the pass that brought the engine to its instant).
    for (Timeline.Start s : timeline.starts()) {
      steps.add(new Step(s.at(), 0, 0, r -> r.start(s, prepare)));
    }
    for (Timeline.LagChange l : timeline.lag()) {
      steps.add(new Step(l.at(), 1, 0, r -> r.session.lagging(l.lagging())));
    }
    for (Timeline.OverrideRequest o : timeline.overrides()) {
      steps.add(new Step(o.at(), 2, 0, r -> r.override(o)));
    }
    List<LoggedObservation> ordered = new ArrayList<>(observations);
    ordered.sort(
        Comparator.comparing((LoggedObservation o) -> o.observation().receivedAt())
            .thenComparingLong(LoggedObservation::seq));
    for (int i = 0; i < ordered.size(); ) {
      Instant t = ordered.get(i).observation().receivedAt();
      long seq = ordered.get(i).seq();
      List<Observation> batch = new ArrayList<>();
      for (; i < ordered.size() && ordered.get(i).observation().receivedAt().equals(t); i++) {
        batch.add(ordered.get(i).observation());
      }
      if (!t.isBefore(begin) && !t.isAfter(end)) {
        steps.add(new Step(t, 3, seq, r -> r.session.feed(t, batch)));
      }
    }
    for (Timeline.Activation a : timeline.activations()) {
      if (replacement.isEmpty()) {
        steps.add(new Step(a.at(), 4, 0, r -> r.session.activate(a.at(), rules.of(a.revision()))));
      }
    }
    steps.sort(
        Comparator.comparing(Step::at).thenComparingInt(Step::order).thenComparingLong(Step::seq));
    Run run = new Run(instants(observations));
    steps.forEach(s -> s.action().accept(run));
    run.session.feed(end, List.of());
    run.close();
    return new Outcome(run.commands, run.claims, run.skipped);
  }

  /** The instants the log holds observations at, to bring a stopped run up to its last one. */
  private static List<Instant> instants(List<LoggedObservation> observations) {
    return observations.stream().map(o -> o.observation().receivedAt()).sorted().toList();
  }

  /** One replay under way: the session of the current start, and what the earlier ones produced. */
  private final class Run {
    final List<Instant> logged;
    ReplaySession session;
    final List<CommandIntent> commands = new ArrayList<>();
    final List<ClaimRecord> claims = new ArrayList<>();
    final Map<String, Integer> skipped = new TreeMap<>();

    Run(List<Instant> logged) {
      this.logged = logged;
    }

    /**
     * A cold start: the run before it ends where the log last saw it decide (its timers ran up to
     * there; a gateway that stopped or was killed ran none after it), then a new engine takes back
     * what the start took back: the first start what the log held then, a later one what the replay
     * itself left (its rules may differ), with the derived state of the log's last snapshot.
     */
    void start(Timeline.Start s, Consumer<ReplaySession> prepare) {
      RestartState state = s.state();
      if (session != null) {
        s.previousRunEnd()
            .or(() -> last(s.engineStart()))
            .ifPresent(t -> session.runDueBefore(t.plusNanos(1)));
        RestartState own = RestartState.of(session.engine());
        state =
            new RestartState(
                own.values(),
                s.state().derivedSnapshot().or(own::derivedSnapshot),
                own.latchedRules(),
                own.overrides(),
                own.cooldowns());
        close();
      }
      session =
          new ReplaySession(
              replacement.orElseGet(() -> rules.of(s.revision())), s.engineStart(), limits);
      state.applyTo(session.engine());
      prepare.accept(session);
      session.feed(s.at(), List.of());
    }

    void override(Timeline.OverrideRequest o) {
      session.runDueBefore(o.at());
      try {
        if (o.set().isPresent()) {
          session.engine().override(o.set().get());
        } else {
          session.engine().clearOverride(o.pointId());
        }
      } catch (IllegalArgumentException e) {
        return; // the replayed rules' registry no longer takes it: the diff shows what follows
      }
      session.feed(o.at(), List.of());
    }

    private Optional<Instant> last(Instant before) {
      Instant found = null;
      for (Instant t : logged) {
        if (!t.isBefore(before)) {
          break;
        }
        found = t;
      }
      return Optional.ofNullable(found);
    }

    void close() {
      commands.addAll(session.commands());
      claims.addAll(session.claims());
      session.skipped().forEach((p, n) -> skipped.merge(p, n, Integer::sum));
    }
  }
}
