package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.RestartState;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.StartMode;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000, "Restarts are the hard case": a gateway runs, stops, and starts again from what the
 * store kept. Restored values must not look like live readings; a fail-safe interlock asserts at
 * once.
 */
class RestartTest {
  static final RuleSet SITE = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
  static final RuleSet LATCH_SITE =
      Site.load(Path.of("src/test/resources/sites/latch")).site().orElseThrow().ruleSet();
  static final Instant T0 = Instant.parse("2026-11-02T05:00:00Z");

  TestDatabase db;
  Pool pool;

  @BeforeEach
  void open() {
    db = TestDatabase.create();
    pool = Store.pool(TestDatabase.VERTX, db.url());
  }

  @AfterEach
  void close() {
    pool.close();
    db.close();
  }

  /** One gateway run: an engine whose every pass goes to the journal. */
  static final class Run {
    final Engine engine;
    final Journal journal;
    final PassRecorder recorder;
    final List<Decision> decisions = new ArrayList<>();

    Run(Pool pool, Path spool, Instant start, Optional<RestartState> restored) throws Exception {
      this(SITE, pool, spool, start, restored);
    }

    Run(RuleSet site, Pool pool, Path spool, Instant start, Optional<RestartState> restored)
        throws Exception {
      engine = new Engine(site, start, StartMode.COLD);
      restored.ifPresent(r -> assertThat(r.applyTo(engine)).isEmpty());
      journal =
          Journal.open(
              pool, JournalSettings.defaults(spool), (e, p) -> {}, TestClock.startingAt(T0));
      recorder = new PassRecorder(journal, engine, site, 1, Duration.ofSeconds(10));
    }

    PassResult pass(Instant t, Sample... samples) {
      List<Observation> obs = new ArrayList<>();
      for (Sample s : samples) {
        obs.add(Observation.of(s, "test"));
      }
      PassResult r = engine.pass(t, List.of(samples), false);
      recorder.record(t, obs, r);
      decisions.addAll(r.decisions());
      return r;
    }

    void stop(Instant t) {
      recorder.snapshot(t);
      killed();
    }

    /** Gone without a last snapshot: only what the recorder offered on its own is kept. */
    void killed() {
      assertThat(journal.drain(Duration.ofSeconds(10))).isTrue();
      journal.close();
    }
  }

  static Sample live(String point, Value v, Instant at) {
    return Sample.live(point, v, at);
  }

  static String describe(Decision d) {
    return d.pointId()
        + "="
        + d.value().map(Object::toString).orElse("-")
        + " by "
        + d.winner().map(w -> w.ruleId()).orElse("release");
  }

  @Test
  void restart_restoredValuesCommandNothing_untilInputsAreLiveAgain_butTheInterlockAssertsAtOnce(
      @TempDir Path dir) throws Exception {
    // Run 1: the flow is hot and the demand has just ended: the pump runs on.
    Run first = new Run(pool, dir.resolve("spool1"), T0, Optional.empty());
    Instant t = T0;
    first.pass(t);
    t = t.plusSeconds(1);
    first.pass(
        t,
        live("boiler.ch1.flow-temp", Value.of(42), t),
        live("boiler.ch1.pressure", Value.of(1.6), t),
        live("boiler.ch1.demand", Value.FALSE, t),
        live("door.main.closed", Value.TRUE, t));
    assertThat(first.decisions)
        .extracting(RestartTest::describe)
        .contains("boiler.ch1.pump=true by pump-run-on");
    first.stop(t.plusSeconds(5));

    // Run 2, ten minutes later, from what the store kept.
    RestartState kept = RestartReader.load(pool, Duration.ofSeconds(10));
    assertThat(kept.values())
        .extracting(RestartState.PointValue::pointId)
        .contains("boiler.ch1.flow-temp", "boiler.ch1.demand", "door.main.closed");
    Instant restart = t.plusSeconds(600);
    Run second = new Run(pool, dir.resolve("spool2"), restart, Optional.of(kept));
    assertThat(second.engine.points().state("boiler.ch1.flow-temp").orElseThrow().quality())
        .isEqualTo(Quality.RESTORED);
    assertThat(second.engine.points().state("boiler.ch1.flow-temp").orElseThrow().value())
        .isEqualTo(Value.of(42));

    // The first pass: only the fail-safe interlock's protective value; the pump rule waits.
    second.pass(restart);
    assertThat(second.decisions)
        .extracting(RestartTest::describe)
        .containsExactly("boiler.ch1.burner=false by boiler-overheat-cutoff");
    assertThat(second.engine.status("pump-run-on").orElseThrow().state())
        .isEqualTo(RuleState.WARMUP);

    // Time passes on restored values alone: still no command.
    second.pass(restart.plusSeconds(30));
    assertThat(second.decisions).hasSize(1);

    // The demand is live again, the flow not yet: still nothing from the pump rule.
    Instant u = restart.plusSeconds(31);
    second.pass(u, live("boiler.ch1.demand", Value.FALSE, u));
    assertThat(second.decisions).hasSize(1);

    // The flow is live again: the pump rule decides on live inputs.
    Instant v = restart.plusSeconds(32);
    second.pass(v, live("boiler.ch1.flow-temp", Value.of(41), v));
    assertThat(second.decisions)
        .extracting(RestartTest::describe)
        .containsExactly(
            "boiler.ch1.burner=false by boiler-overheat-cutoff",
            "boiler.ch1.pump=true by pump-run-on");
    // The interlock lets go only once the pressure is live too.
    Instant w = restart.plusSeconds(33);
    second.pass(w, live("boiler.ch1.pressure", Value.of(1.6), w));
    assertThat(second.decisions)
        .extracting(RestartTest::describe)
        .endsWith("boiler.ch1.burner=false by release");
    second.stop(w);
  }

  @Test
  void restart_keepsTheActionCooldown_andTheDerivedMemory(@TempDir Path dir) throws Exception {
    Run first = new Run(pool, dir.resolve("spool1"), T0, Optional.empty());
    Instant t = T0;
    first.pass(t, live("door.main.closed", Value.TRUE, t));
    t = t.plusSeconds(70);
    // The door opens: door-open-alert notifies (cooldown 15 min) and the absence window starts.
    PassResult opened = first.pass(t, live("door.main.closed", Value.FALSE, t));
    assertThat(opened.actions()).extracting(a -> a.ruleId()).contains("door-open-alert");
    first.stop(t);

    RestartState kept = RestartReader.load(pool, Duration.ofSeconds(10));
    assertThat(kept.cooldowns())
        .extracting(RestartState.Cooldown::ruleId)
        .contains("door-open-alert");
    assertThat(kept.derivedSnapshot()).isPresent();
    Instant restart = t.plusSeconds(60);
    Run second = new Run(pool, dir.resolve("spool2"), restart, Optional.of(kept));
    second.pass(restart, live("door.main.closed", Value.TRUE, restart));
    Instant again = restart.plusSeconds(70);
    PassResult reopened = second.pass(again, live("door.main.closed", Value.FALSE, again));
    // Within 15 min of the last notification: quiet, although this engine never notified.
    assertThat(reopened.actions()).extracting(a -> a.ruleId()).doesNotContain("door-open-alert");

    // Past the cooldown it notifies again, in a generation after the one the log holds (seed 003,
    // "reset starts a new generation, so replaying never reuses an id"; issue 18).
    assertThat(alerts(opened)).containsExactly("door-open-alert/0/1/1");
    Instant closed = t.plusSeconds(16 * 60);
    second.pass(closed, live("door.main.closed", Value.TRUE, closed));
    Instant later = closed.plusSeconds(1);
    PassResult notified = second.pass(later, live("door.main.closed", Value.FALSE, later));
    assertThat(alerts(notified)).containsExactly("door-open-alert/0/2/1");
    second.stop(later);
  }

  private static List<String> alerts(PassResult r) {
    return r.actions().stream()
        .filter(a -> a.ruleId().equals("door-open-alert"))
        .map(a -> a.id())
        .toList();
  }

  @Test
  void restart_keepsTheLatch_keptWhenItWasSet_andItHoldsUntilTheReset(@TempDir Path dir)
      throws Exception {
    Run first = new Run(LATCH_SITE, pool, dir.resolve("spool1"), T0, Optional.empty());
    Instant t = T0.plusSeconds(1);
    first.pass(t, live("line.estop", Value.TRUE, t), live("line.reset", Value.FALSE, t));
    Instant released = t.plusSeconds(1);
    first.pass(released, live("line.estop", Value.FALSE, released));
    assertThat(first.decisions)
        .extracting(RestartTest::describe)
        .containsExactly("line.motor-stop=true by estop-hold");
    // Killed a second after the latch was set, long before a periodic snapshot was due.
    first.killed();

    RestartState kept = RestartReader.load(pool, Duration.ofSeconds(10));
    assertThat(kept.latchedRules()).containsExactly("estop-hold");
    Instant restart = released.plusSeconds(600);
    Run second = new Run(LATCH_SITE, pool, dir.resolve("spool2"), restart, Optional.of(kept));
    second.pass(restart);
    assertThat(second.decisions)
        .extracting(RestartTest::describe)
        .containsExactly("line.motor-stop=true by estop-hold");

    Instant reset = restart.plusSeconds(5);
    second.pass(
        reset, live("line.estop", Value.FALSE, reset), live("line.reset", Value.TRUE, reset));
    assertThat(second.decisions)
        .extracting(RestartTest::describe)
        .endsWith("line.motor-stop=false by release");
    second.stop(reset);
    assertThat(RestartReader.load(pool, Duration.ofSeconds(10)).latchedRules()).isEmpty();
  }
}
