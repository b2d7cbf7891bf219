package io.sentinel.testing;

import io.sentinel.arbitration.Decision;
import io.sentinel.command.CommandSettings;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.RestartState;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.pass.Pass;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.testing.FixtureCase.Check;
import io.sentinel.testing.FixtureCase.Given;
import io.sentinel.testing.FixtureCase.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs fixture cases on the engine itself: the same composition the gateway runs ({@link Pass}),
 * driven by a clock that starts at {@link #START} and moves only as the case says.
 */
public final class FixtureRunner {
  /** Where a case's clock starts unless it says {@code start_at}. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final RuleSet ruleSet;
  private final EngineLimits limits;

  public FixtureRunner(RuleSet ruleSet, EngineLimits limits) {
    this.ruleSet = ruleSet;
    this.limits = limits;
  }

  /** The outcome of one case, and the situations of its rule that its checks observed. */
  public record CaseResult(FixtureCase fixture, List<String> failures, Set<String> covered) {
    public boolean passed() {
      return failures.isEmpty();
    }
  }

  public CaseResult run(FixtureCase c) {
    Instant start = c.startAt();
    Engine engine = new Engine(ruleSet, start, c.start(), limits);
    List<Sample> samples = new ArrayList<>();
    for (Given g : c.given()) {
      if (g.quality() == Quality.RESTORED) {
        engine.points().restore(g.pointId(), g.value(), start);
      } else {
        samples.add(new Sample(g.pointId(), g.value(), g.quality(), start));
      }
    }
    Run run = new Run(c, simulated(engine));
    run.collect(run.pass.run(start, samples, false).result());
    run.check(c.initial(), Duration.ZERO, c.where().line());
    boolean lag = false;
    for (Step step : c.steps()) {
      Instant at = start.plus(step.at());
      if (step.lag().isPresent() && step.lag().get() != lag) {
        // Lag changes at the step's instant: time up to it passes under the previous state.
        run.collect(run.pass.run(at, List.of(), lag).result());
        lag = step.lag().get();
      }
      if (step.restart()) {
        run.collect(run.pass.run(at, List.of(), lag).result());
        run.switchTo(simulated(restarted(run.engine, at)));
      }
      List<Sample> batch = new ArrayList<>();
      for (Given g : step.set()) {
        batch.add(new Sample(g.pointId(), g.value(), g.quality(), at));
      }
      Instant until = at;
      if (step.toggle().isPresent()) {
        FixtureCase.Toggle t = step.toggle().get();
        for (int k = 0; k < t.times(); k++) {
          Instant when = at.plus(t.every().multipliedBy(k));
          batch.add(Sample.live(t.pointId(), t.values().get(k % t.values().size()), when));
          until = when;
        }
      }
      run.collect(run.pass.run(until, batch, lag).result());
      run.check(step.check(), Duration.between(start, until), step.where().line());
    }
    return new CaseResult(c, run.failures, run.covered);
  }

  /**
   * A restart as the gateway does one: a new engine, cold, taking back what the log holds of the
   * engine it replaces ({@link RestartState}).
   */
  private Engine restarted(Engine before, Instant at) {
    Engine after = new Engine(ruleSet, at, io.sentinel.engine.StartMode.COLD, limits);
    RestartState.of(before).applyTo(after);
    return after;
  }

  /** The case's engine in the composition the gateway runs, on the case's clock. */
  private static Pass simulated(Engine engine) {
    return Pass.simulated(engine, CommandSettings.DEFAULT);
  }

  /** What one case has seen so far. */
  private final class Run {
    final FixtureCase fixture;
    Pass pass;
    Engine engine;
    final List<String> failures = new ArrayList<>();
    final Set<String> covered = new LinkedHashSet<>();
    final List<ActionFired> actions = new ArrayList<>();
    final List<ControlEvent> events = new ArrayList<>();
    final List<String> firings = new ArrayList<>();

    Run(FixtureCase fixture, Pass pass) {
      this.fixture = fixture;
      switchTo(pass);
    }

    void switchTo(Pass next) {
      pass = next;
      engine = next.engine();
    }

    void collect(PassResult result) {
      actions.addAll(result.actions());
      events.addAll(result.events());
      result.firings().forEach(f -> firings.add(f.id()));
    }

    void check(Check check, Duration at, int line) {
      if (check.isEmpty()) {
        return;
      }
      String where = "at " + format(at) + " (" + fixture.where().file() + ":" + line + ")";
      Optional<RuleStatus> status = fixture.rule().flatMap(engine::status);
      check
          .claims()
          .ifPresent(
              expected -> {
                Map<String, Value> held = status.map(RuleStatus::claims).orElse(Map.of());
                if (!held.equals(expected)) {
                  failures.add(
                      where
                          + ": expected claims "
                          + show(expected)
                          + ", the rule holds "
                          + show(held));
                }
              });
      check
          .outputs()
          .ifPresent(
              expected -> expected.forEach((point, value) -> checkOutput(where, point, value)));
      check
          .state()
          .ifPresent(
              expected -> {
                String actual = status.map(s -> s.state().wireName()).orElse("(no rule)");
                if (!actual.equals(expected)) {
                  failures.add(where + ": expected state " + expected + ", the rule is " + actual);
                }
              });
      checkActions(check, where);
      check.points().forEach((id, expected) -> checkPoint(where, expected));
      check.firings().ifPresent(expected -> checkFirings(where, expected));
      firings.clear();
      for (Map<String, String> e : check.events()) {
        boolean found =
            events.stream()
                .anyMatch(
                    ev ->
                        matches(
                            e,
                            Map.of(
                                "kind",
                                ev.kind(),
                                "subject",
                                ev.subject(),
                                "message",
                                ev.message())));
        if (!found) {
          failures.add(
              where
                  + ": expected event "
                  + e
                  + ", events were "
                  + events.stream().map(ev -> ev.kind() + " " + ev.subject()).toList());
        }
      }
      actions.clear();
      events.clear();
      fixture.rule().flatMap(ruleSet::rule).ifPresent(rule -> observe(rule, status));
    }

    /** Firings of the points the expectation names ([] = no firing at all). */
    private void checkFirings(String where, List<String> expected) {
      Set<String> named = new java.util.HashSet<>();
      expected.forEach(id -> named.add(id.substring(0, id.indexOf('/'))));
      List<String> actual =
          expected.isEmpty()
              ? firings
              : firings.stream()
                  .filter(id -> named.contains(id.substring(0, id.indexOf('/'))))
                  .toList();
      if (!actual.equals(expected)) {
        failures.add(where + ": expected firings " + expected + ", got " + actual);
      }
    }

    private void checkPoint(String where, Given expected) {
      io.sentinel.point.PointState actual = engine.points().state(expected.pointId()).orElseThrow();
      boolean valueOk = !expected.value().isPresent() || expected.value().equals(actual.value());
      if (!valueOk || expected.quality() != actual.quality()) {
        failures.add(
            where
                + ": expected "
                + expected.pointId()
                + " = "
                + (expected.value().isPresent() ? expected.value() + " " : "")
                + expected.quality().wireName()
                + ", it is "
                + actual.value()
                + " "
                + actual.quality().wireName());
      }
    }

    private void checkOutput(String where, String point, FixtureCase.Output expected) {
      Optional<Decision> out = engine.output(point);
      Optional<io.sentinel.arbitration.Claim> winner = out.flatMap(Decision::winner);
      boolean ok =
          expected.value().isEmpty()
              ? winner.isEmpty()
              : expected.value().equals(out.flatMap(Decision::value));
      ok &=
          expected.rule().isEmpty()
              || expected.rule().equals(winner.map(io.sentinel.arbitration.Claim::ruleId));
      ok &=
          expected.decidingKey().isEmpty()
              || expected.decidingKey().equals(out.map(Decision::decidingKey));
      if (!ok) {
        failures.add(
            where
                + ": expected output of "
                + point
                + " "
                + expected.value().map(Value::toString).orElse("released")
                + expected.rule().map(r -> " from " + r).orElse("")
                + expected.decidingKey().map(k -> " decided by " + k).orElse("")
                + ", it is "
                + winner
                    .map(
                        w ->
                            w.value()
                                + " from "
                                + w.ruleId()
                                + " decided by "
                                + out.get().decidingKey())
                    .orElse("released"));
      }
    }

    private void checkActions(Check check, String where) {
      if (check.actions().isEmpty() && !check.actionsExact()) {
        return;
      }
      // A case about one rule checks that rule's actions; other rules may fire their own.
      List<ActionFired> remaining =
          new ArrayList<>(
              actions.stream()
                  .filter(a -> fixture.rule().map(r -> r.equals(a.ruleId())).orElse(true))
                  .toList());
      for (Map<String, String> expected : check.actions()) {
        Optional<ActionFired> hit =
            remaining.stream().filter(a -> matches(expected, actionFields(a))).findFirst();
        if (hit.isEmpty()) {
          failures.add(
              where
                  + ": expected action "
                  + expected
                  + ", fired "
                  + actions.stream().map(this::actionFields).toList());
          return;
        }
        remaining.remove(hit.get());
      }
      if (!remaining.isEmpty()) {
        failures.add(
            where
                + ": unexpected actions fired "
                + remaining.stream().map(this::actionFields).toList());
      }
    }

    private Map<String, String> actionFields(ActionFired a) {
      Map<String, String> m = new TreeMap<>(a.fields());
      m.put("kind", a.kind());
      m.put("rule", a.ruleId());
      m.put("id", a.id());
      return m;
    }

    private boolean matches(Map<String, String> expected, Map<String, String> actual) {
      return expected.entrySet().stream()
          .allMatch(e -> e.getValue().equals(actual.get(e.getKey())));
    }

    /** Which conventional situation of the rule this check looked at. */
    private void observe(Rule rule, Optional<RuleStatus> status) {
      if (status.isEmpty()) {
        return;
      }
      RuleStatus s = status.get();
      if (s.state() == RuleState.WARMUP) {
        covered.add(Coverage.WARMUP);
        return;
      }
      boolean inputsGood = true;
      for (Map.Entry<String, String> input : rule.inputs().entrySet()) {
        Quality q = engine.points().state(input.getValue()).orElseThrow().quality();
        if (q == Quality.STALE) {
          covered.add(Coverage.stale(input.getKey()));
        } else if (q == Quality.UNAVAILABLE) {
          covered.add(Coverage.unavailable(input.getKey()));
        }
        inputsGood &= q == Quality.LIVE;
      }
      if (inputsGood && s.state() == RuleState.ACTIVE) {
        s.lastCondition()
            .ifPresent(c -> covered.add(c ? Coverage.CONDITION_TRUE : Coverage.CONDITION_FALSE));
      }
    }
  }

  private static String show(Map<String, Value> claims) {
    return new TreeMap<>(claims).toString();
  }

  static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
  }
}
