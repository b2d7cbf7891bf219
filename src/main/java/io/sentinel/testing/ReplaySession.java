package io.sentinel.testing;

import io.sentinel.command.CommandSettings;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.pass.Pass;
import io.sentinel.passlog.ClaimRecord;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.Observation;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Sample;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A cold-started engine on a simulated clock, fed observation by observation: each observation at
 * the instant the gateway received it, each timer in a pass of its own at its due instant, so every
 * command is stamped with the instant the engine decided it. Replay and the example site's recorded
 * scenario both drive the engine through this, as one {@link Pass} with a simulated driver.
 */
public final class ReplaySession {
  private RuleSet ruleSet;
  private boolean lagging;
  private final Pass pass;
  private final List<CommandIntent> commands = new ArrayList<>();
  private final List<ClaimRecord> claims = new ArrayList<>();
  private final Map<String, Integer> skipped = new TreeMap<>();
  private PassListener listener = (t, fed, r) -> {};

  /**
   * Sees every pass the session runs, at the pass's instant, with the observations fed to it (to
   * log a scripted run, or to audit a replay).
   */
  @FunctionalInterface
  public interface PassListener {
    void passed(Instant at, List<Observation> fed, PassResult result);
  }

  public ReplaySession(RuleSet ruleSet, Instant start, EngineLimits limits) {
    this.ruleSet = ruleSet;
    this.pass =
        Pass.simulated(new Engine(ruleSet, start, StartMode.COLD, limits), CommandSettings.DEFAULT);
  }

  /** The engine, to restore state before the first {@link #feed} or to read its outputs. */
  public Engine engine() {
    return pass.engine();
  }

  /** The composition the session runs: engine, command plane and their timers. */
  public Pass pass() {
    return pass;
  }

  public void listen(PassListener listener) {
    this.listener = listener;
  }

  /** Runs every timer due before {@code t}, then a pass at {@code t} with these observations. */
  public void feed(Instant t, List<Observation> observations) {
    List<Sample> batch = new ArrayList<>();
    List<Observation> fed = new ArrayList<>();
    for (Observation o : observations) {
      if (fits(o)) {
        batch.add(new Sample(o.pointId(), o.value(), o.quality(), t));
        fed.add(o);
      } else {
        skipped.merge(o.pointId(), 1, Integer::sum);
      }
    }
    runDueBefore(t);
    if (!t.isBefore(pass.engine().clock())) {
      passed(t, fed, pass.run(t, batch, lagging).result());
    }
  }

  /** Every timer due before {@code t}, each in a pass of its own at its due instant. */
  public void runDueBefore(Instant t) {
    pass.runDueBefore(t, lagging, (at, samples, o) -> passed(at, List.of(), o.result()));
  }

  /** From the next pass on, whether ingest lags (as the log recorded it). */
  public void lagging(boolean lagging) {
    this.lagging = lagging;
  }

  /**
   * Hands the engine over to {@code next} at {@code t} as the gateway does between two passes: the
   * timers due before it and a pass at {@code t} first, then the activation, whose claim changes
   * and commands are stamped {@code t}.
   */
  public void activate(Instant t, RuleSet next) {
    feed(t, List.of());
    ruleSet = next;
    io.sentinel.engine.Engine.Activation a = pass.activate(next);
    pass.command(pass.engine().clock(), a);
    passed(pass.engine().clock(), List.of(), a.result());
  }

  /** The claim changes so far, in order. */
  public List<ClaimRecord> claims() {
    return List.copyOf(claims);
  }

  /** The commands asked for so far, in order. */
  public List<CommandIntent> commands() {
    return List.copyOf(commands);
  }

  /**
   * Observations not fed (unknown point, derived point, or a value of the wrong type), per point.
   */
  public Map<String, Integer> skipped() {
    return Map.copyOf(skipped);
  }

  private boolean fits(Observation o) {
    Optional<PointSpec> spec = ruleSet.registry().find(o.pointId());
    return spec.isPresent()
        && !ruleSet.derived().contains(o.pointId())
        && (!o.value().isPresent() || spec.get().type().accepts(o.value()));
  }

  private void passed(Instant t, List<Observation> fed, PassResult r) {
    commands.addAll(CommandIntent.of(t, r, id -> ruleSet.rule(id).map(Rule::band)));
    claims.addAll(ClaimRecord.of(r));
    listener.passed(t, fed, r);
  }
}
