package io.sentinel.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.RestartState;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.Timeline;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Replay takes ingest lag as the log recorded it (issue 16, docs/replay.md): a backlog drained
 * under lag decides nothing in the gateway (docs/engine.md, "Warmup"), so it decides nothing in the
 * replay either; the same samples without the recorded lag would have run the pump.
 */
class ReplayLagTest {
  private static final RuleSet RULES = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
  private static final Instant T0 = Instant.parse("2026-11-02T05:00:00Z");
  private static final String PUMP = "boiler.ch1.pump";

  /** The example site's pump inputs drained from the backlog at 2 s, then fresh ones at 5 s. */
  private static final List<LoggedObservation> LOGGED =
      List.of(
          logged(1, "boiler.ch1.flow-temp", Value.of(42.0), 2),
          logged(2, "boiler.ch1.demand", Value.of(false), 2),
          logged(3, "boiler.ch1.flow-temp", Value.of(43.0), 5),
          logged(4, "boiler.ch1.demand", Value.of(false), 5));

  @Test
  void aBacklogDrainedUnderLag_decidesNothing_theFirstFreshSamplesRunThePump() {
    List<Timeline.LagChange> lag =
        List.of(
            new Timeline.LagChange(T0.plusSeconds(1), true),
            new Timeline.LagChange(T0.plusSeconds(3), false));
    assertThat(pumpCommands(lag))
        .extracting(CommandIntent::at, CommandIntent::describe)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                T0.plusSeconds(5), PUMP + " := true (pump-run-on, automation)"));
  }

  @Test
  void theSameSamplesWithoutLag_runThePumpAtOnce() {
    assertThat(pumpCommands(List.of()))
        .extracting(CommandIntent::at)
        .containsExactly(T0.plusSeconds(2));
  }

  private static List<CommandIntent> pumpCommands(List<Timeline.LagChange> lag) {
    Timeline timeline =
        new Timeline(
            List.of(new Timeline.Start(T0, T0, 1, RestartState.NONE, true, Optional.empty())),
            List.of(),
            List.of(),
            lag);
    Replay.Outcome outcome =
        new Replay(revision -> RULES, Optional.empty(), EngineLimits.DEFAULT)
            .run(LOGGED, timeline, T0.plus(Duration.ofSeconds(10)));
    return outcome.commands().stream().filter(c -> c.pointId().equals(PUMP)).toList();
  }

  private static LoggedObservation logged(long seq, String point, Value value, int second) {
    Instant at = T0.plusSeconds(second);
    return new LoggedObservation(
        seq, new Observation(point, value, Quality.LIVE, "mqtt:test", Optional.empty(), at));
  }
}
