package io.sentinel.pass;

import io.sentinel.command.Command;
import io.sentinel.command.CommandPlane;
import io.sentinel.command.CommandSettings;
import io.sentinel.command.Driver;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Sample;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One pass, composed once: the engine decides, the pass is handed to whoever records it, then the
 * command plane takes the decisions and pulses and runs what fell due. The gateway runs it on the
 * wall clock ({@code runtime.EngineLoop}); the fixture runner and replay on a simulated clock,
 * where {@link #runDueBefore} runs each timer in a pass of its own at its due instant, and a
 * simulated driver confirms every command at once.
 */
public final class Pass {
  private Engine engine;
  private final CommandPlane plane;
  private final Optional<SimulatedDriver> simulated;

  /**
   * What one pass produced: the engine's result, what the command plane reported, and the samples
   * it refused alone ({@link Admission}).
   */
  public record Outcome(PassResult result, PlaneOutput plane, List<Admission.Refused> refused) {
    public Outcome(PassResult result, PlaneOutput plane) {
      this(result, plane, List.of());
    }
  }

  /** Sees the engine's result before the command plane acts on it (the log keeps it first). */
  @FunctionalInterface
  public interface Recorder {
    Recorder NONE = (now, result) -> {};

    void decided(Instant now, PassResult result);
  }

  /** Sees each pass a simulated clock runs (to log a scripted run, or to audit a replay). */
  @FunctionalInterface
  public interface Listener {
    void passed(Instant at, List<Sample> samples, Outcome outcome);
  }

  /** The gateway's composition: an engine and a plane with real drivers. */
  public Pass(Engine engine, CommandPlane plane) {
    this(engine, plane, Optional.empty());
  }

  private Pass(Engine engine, CommandPlane plane, Optional<SimulatedDriver> simulated) {
    this.engine = engine;
    this.plane = plane;
    this.simulated = simulated;
  }

  /**
   * The composition on a simulated clock (fixtures, replay): every claimable point's commands go to
   * one driver that is always ready and confirms each command in the pass that sent it.
   */
  public static Pass simulated(Engine engine, CommandSettings settings) {
    SimulatedDriver driver = new SimulatedDriver(null);
    CommandPlane plane = new CommandPlane(engine.ruleSet(), spec -> driver, settings, "sim");
    return new Pass(engine, plane, Optional.of(driver));
  }

  /**
   * The composition of a shadow revision (docs/shadow.md): the same engine and command plane, its
   * commands handed to {@code recorder} instead of a device (nothing kept here), each confirmed at
   * once as on a simulated clock. Command ids carry {@code boot}.
   */
  public static Pass recording(
      Engine engine,
      CommandSettings settings,
      String boot,
      java.util.function.Consumer<Command> recorder) {
    SimulatedDriver driver = new SimulatedDriver(recorder);
    CommandPlane plane = new CommandPlane(engine.ruleSet(), spec -> driver, settings, boot);
    return new Pass(engine, plane, Optional.of(driver));
  }

  public Engine engine() {
    return engine;
  }

  public CommandPlane plane() {
    return plane;
  }

  /**
   * One pass at {@code now}: the engine takes the samples (those it can hold: {@link Admission})
   * and the timers due, {@code recorder} sees its result, then the command plane takes the result
   * and runs what fell due.
   */
  public Outcome run(Instant now, List<Sample> samples, boolean lagging, Recorder recorder) {
    List<Admission.Refused> refused = new ArrayList<>(0);
    PassResult result =
        engine.pass(now, Admission.admit(engine.points(), samples, refused), lagging);
    recorder.decided(now, result);
    PlaneOutput applied = plane.apply(now, result);
    PlaneOutput ticked = plane.tick(now);
    return new Outcome(result, merge(applied, ticked, confirmSimulated(now)), refused);
  }

  /** {@link #run(Instant, List, boolean, Recorder)} with nothing to record. */
  public Outcome run(Instant now, List<Sample> samples, boolean lagging) {
    return run(now, samples, lagging, Recorder.NONE);
  }

  /**
   * On a simulated clock: every timer of the engine or the plane due before {@code t}, each in a
   * pass of its own at its due instant, so every decision and command is stamped with the instant
   * it was taken.
   */
  public void runDueBefore(Instant t, Listener listener) {
    runDueBefore(t, false, listener);
  }

  /** {@link #runDueBefore(Instant, Listener)}, each pass told whether ingest lags (replay). */
  public void runDueBefore(Instant t, boolean lagging, Listener listener) {
    for (Optional<Instant> due = nextDue();
        due.isPresent() && due.get().isBefore(t);
        due = nextDue()) {
      listener.passed(due.get(), List.of(), run(due.get(), List.of(), lagging));
    }
  }

  /** When the engine or the plane next has something to do without new samples, if ever. */
  public Optional<Instant> nextDue() {
    Optional<Instant> a = engine.nextDue();
    Optional<Instant> b = plane.nextDue();
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return Optional.of(a.get().isBefore(b.get()) ? a.get() : b.get());
  }

  /**
   * Hands the engine over to a new rule set at its clock ({@link Engine#activate}); from here the
   * new rule set runs. The plane learns the new rules' bands; {@link #command} hands it what the
   * activation changed at once.
   */
  public Engine.Activation activate(RuleSet next) {
    Engine.Activation a = engine.activate(next);
    engine = a.engine();
    plane.rulesChanged(next);
    return a;
  }

  /** The command plane takes what an activation changed, at {@code now}. */
  public PlaneOutput command(Instant now, Engine.Activation a) {
    return merge(plane.apply(now, a.result()), confirmSimulated(now));
  }

  /** The commands the simulated driver was handed so far, in order (empty for real drivers). */
  public List<Command> simulatedCommands() {
    return simulated.map(d -> List.copyOf(d.sent)).orElse(List.of());
  }

  private PlaneOutput confirmSimulated(Instant now) {
    if (simulated.isEmpty()) {
      return PlaneOutput.NONE;
    }
    List<PlaneOutput> outs = new ArrayList<>();
    for (Command c; (c = simulated.get().unconfirmed.poll()) != null; ) {
      outs.add(plane.delivered(now, c.commandId()));
    }
    return merge(outs.toArray(PlaneOutput[]::new));
  }

  /** Several plane outputs as one, in order. */
  public static PlaneOutput merge(PlaneOutput... outs) {
    List<ControlEvent> events = new ArrayList<>();
    List<SelfPoint> self = new ArrayList<>();
    for (PlaneOutput o : outs) {
      events.addAll(o.events());
      self.addAll(o.selfPoints());
    }
    return events.isEmpty() && self.isEmpty() ? PlaneOutput.NONE : new PlaneOutput(events, self);
  }

  /** A driver on a simulated clock: always ready, every command confirmed in its own pass. */
  private static final class SimulatedDriver implements Driver {
    final List<Command> sent = new ArrayList<>();
    final java.util.ArrayDeque<Command> unconfirmed = new java.util.ArrayDeque<>();

    /** Where a recording composition hands each command (and keeps none); null: kept in sent. */
    private final java.util.function.Consumer<Command> recorder;

    SimulatedDriver(java.util.function.Consumer<Command> recorder) {
      this.recorder = recorder;
    }

    @Override
    public String name() {
      return "simulated";
    }

    @Override
    public boolean ready() {
      return true;
    }

    @Override
    public void send(Command command) {
      if (recorder == null) {
        sent.add(command);
      } else {
        recorder.accept(command);
      }
      unconfirmed.add(command);
    }
  }
}
