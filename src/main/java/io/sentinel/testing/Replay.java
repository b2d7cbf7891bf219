package io.sentinel.testing;

import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Replays logged observations through a rule set (seed 000: "take a window of real observations
 * from the log, run the rule set against it, and diff the claims against what actually happened").
 */
public final class Replay {
  private final RuleSet ruleSet;
  private final EngineLimits limits;

  public Replay(RuleSet ruleSet, EngineLimits limits) {
    this.ruleSet = ruleSet;
    this.limits = limits;
  }

  /**
   * What a replay produced: the commands, and the observations it could not feed (a point the rule
   * set's registry lacks, or a value of the wrong type), counted per point.
   */
  public record Outcome(List<CommandIntent> commands, Map<String, Integer> skipped) {
    public Outcome {
      commands = List.copyOf(commands);
      skipped = Map.copyOf(skipped);
    }
  }

  /**
   * A cold start at {@code start}, the observations received up to {@code end}, then time to it.
   */
  public Outcome run(List<LoggedObservation> observations, Instant start, Instant end) {
    return run(observations, start, end, e -> {});
  }

  /** As {@link #run(List, Instant, Instant)}, after {@code prepare} has had the new engine. */
  public Outcome run(
      List<LoggedObservation> observations, Instant start, Instant end, Consumer<Engine> prepare) {
    ReplaySession session = new ReplaySession(ruleSet, start, limits);
    prepare.accept(session.engine());
    List<LoggedObservation> ordered = new ArrayList<>(observations);
    ordered.sort(
        Comparator.comparing((LoggedObservation o) -> o.observation().receivedAt())
            .thenComparingLong(LoggedObservation::seq));
    session.feed(start, List.of());
    int i = 0;
    while (i < ordered.size()) {
      Instant t = ordered.get(i).observation().receivedAt();
      List<Observation> batch = new ArrayList<>();
      for (; i < ordered.size() && ordered.get(i).observation().receivedAt().equals(t); i++) {
        batch.add(ordered.get(i).observation());
      }
      if (!t.isBefore(start) && !t.isAfter(end)) {
        session.feed(t, batch);
      }
    }
    session.feed(end, List.of());
    return new Outcome(session.commands(), session.skipped());
  }
}
