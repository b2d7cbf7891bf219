package io.sentinel.command;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Direction;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Function;

/**
 * Turns arbitration outcomes and pulse actions into commands for drivers (seed 000: a rule's output
 * ends at the claim; delivery is this plane's business). Pure and single-threaded like the engine:
 * every call says what time it is.
 *
 * <ul>
 *   <li>Per point, the latest wanted command wins: a newer value replaces one still waiting for the
 *       point's {@code command_rate.min_interval} or for its driver to be ready.
 *   <li>A command handed to a driver is never dropped: one whose delivery failed is handed over
 *       again, with the same id, in order, as soon as the driver is ready.
 *   <li>Interlock-band commands and the end of a pulse do not wait for the rate interval.
 *   <li>A point with {@code pulse_max} is never commanded {@code true} for longer than that: a
 *       claim of {@code true} ends with a {@code pulse-off} after {@code pulse_max}, and a pulse
 *       during a pulse extends it to the later of the two ends, but no further than {@code
 *       pulse_max} from when the point was energised (docs/gpio.md, "Pulses").
 *   <li>An interlock-band command not delivered within {@link CommandSettings#interlockBound} is
 *       escalated: {@code interlock-unenforced} and self point {@code
 *       point.<id>.interlock-unenforced}.
 *   <li>For an {@code inout} point, feedback must reach a delivered value within {@link
 *       CommandSettings#convergenceBound}, else {@code command-not-converged}.
 * </ul>
 */
public final class CommandPlane {
  private final Map<String, Slot> slots = new LinkedHashMap<>();
  private final Map<String, Slot> byCommand = new HashMap<>();
  private final Map<String, Band> ruleBands = new HashMap<>();
  private final CommandSettings settings;
  private final String bootId;
  private final PriorityQueue<Due> dues =
      new PriorityQueue<>(Comparator.comparing(Due::at).thenComparingLong(Due::seq));
  private long dueSeq;
  private List<ControlEvent> events = new ArrayList<>();
  private List<SelfPoint> selfPoints = new ArrayList<>();

  /**
   * @param drivers the driver of each claimable point
   * @param bootId distinguishes this run's command ids from a previous run's (the runtime passes
   *     its start instant)
   */
  public CommandPlane(
      RuleSet ruleSet,
      Function<PointSpec, Driver> drivers,
      CommandSettings settings,
      String bootId) {
    this.settings = settings;
    this.bootId = bootId;
    for (PointSpec spec : ruleSet.registry().points().values()) {
      if (spec.direction().claimable()) {
        slots.put(spec.id(), new Slot(spec, drivers.apply(spec)));
      }
    }
    for (Rule r : ruleSet.rules()) {
      ruleBands.put(r.id(), r.band());
    }
  }

  /**
   * A new rule set runs (the registry, hence the slots, is the same): its rules' bands are known
   * from now on; a removed rule's band stays for the commands still in flight in its name.
   */
  public void rulesChanged(RuleSet next) {
    for (Rule r : next.rules()) {
      ruleBands.put(r.id(), r.band());
    }
  }

  /** Takes a pass's decisions, pulse actions and the feedback of {@code inout} points. */
  public PlaneOutput apply(Instant now, PassResult result) {
    return apply(now, result.transitions(), result.decisions(), result.actions());
  }

  /** As {@link #apply(Instant, PassResult)}, from the parts of a pass that concern commands. */
  public PlaneOutput apply(
      Instant now,
      List<Transition> transitions,
      List<Decision> decisions,
      List<ActionFired> actions) {
    for (Transition t : transitions) {
      Slot s = slots.get(t.pointId());
      if (s != null && s.spec.direction() == Direction.INOUT && t.valueChanged()) {
        s.feedback = t.current().value();
        if (s.convergeTo != null && matches(s, s.feedback, s.convergeTo)) {
          s.convergeTo = null;
        }
      }
    }
    Set<Slot> touched = new LinkedHashSet<>();
    for (Decision d : decisions) {
      Slot s = slots.get(d.pointId());
      if (s == null) {
        continue;
      }
      s.decided = d.value();
      Command.Kind kind = d.winner().isPresent() ? Command.Kind.ASSERT : Command.Kind.RELEASE;
      want(
          s,
          new Desired(
              d.value().orElse(Value.ABSENT),
              kind,
              d.winner().map(w -> w.band()),
              d.winner().map(w -> w.ruleId()),
              Duration.ZERO),
          now);
      touched.add(s);
    }
    for (ActionFired a : actions) {
      if (a.spec() instanceof ActionSpec.Fade f) {
        fade(a, f, now).ifPresent(touched::add);
        continue;
      }
      if (!(a.spec() instanceof ActionSpec.Pulse pulse)) {
        continue;
      }
      Slot s = slots.get(pulse.point());
      if (s == null) {
        continue; // the loader checked the point; one this plane does not drive is not its own
      }
      want(
          s,
          new Desired(
              Value.TRUE,
              Command.Kind.PULSE_ON,
              Optional.ofNullable(ruleBands.get(a.ruleId())),
              Optional.of(a.ruleId()),
              pulse.duration()),
          now);
      touched.add(s);
    }
    for (Slot s : touched) {
      dispatch(s, now);
      reviewInterlock(s, now);
    }
    return flush();
  }

  /** A fade action becomes a command carrying its target value and ramp. */
  private Optional<Slot> fade(ActionFired a, ActionSpec.Fade fade, Instant now) {
    Slot s = slots.get(fade.point());
    if (s == null) {
      return Optional.empty();
    }
    want(
        s,
        new Desired(
            fade.value(),
            Command.Kind.FADE,
            Optional.ofNullable(ruleBands.get(a.ruleId())),
            Optional.of(a.ruleId()),
            fade.over()),
        now);
    return Optional.of(s);
  }

  /**
   * A driver became ready (or stopped being): what waited for it is handed over now, interlock-band
   * commands before the others.
   */
  public PlaneOutput readinessChanged(Instant now, Driver driver) {
    // Interlock commands first: a fail-safe reaches its device before anything else that waited.
    for (boolean interlocks : new boolean[] {true, false}) {
      for (Slot s : slots.values()) {
        boolean interlock = s.waiting != null && s.waiting.band.orElse(null) == Band.INTERLOCK;
        if (s.driver == driver && interlock == interlocks) {
          dispatch(s, now);
          reviewInterlock(s, now);
        }
      }
    }
    return flush();
  }

  /** The driver confirmed a command (for MQTT: the broker acknowledged it at QoS 1). */
  public PlaneOutput delivered(Instant now, String commandId) {
    Slot s = byCommand.remove(commandId);
    if (s == null) {
      return flush(); // a second confirmation of a re-sent command
    }
    Command c = null;
    for (var it = s.unconfirmed.iterator(); it.hasNext(); ) {
      Sent sent = it.next();
      if (sent.command.commandId().equals(commandId)) {
        c = sent.command;
        it.remove();
        break;
      }
    }
    if (c != null && c == s.lastHanded) {
      s.lastHandedConfirmed = true;
      if (s.spec.direction() == Direction.INOUT && c.value().isPresent()) {
        s.convergeTo = c.value();
        s.convergeCommand = c.commandId();
        s.convergeBy = now.plus(settings.convergenceBound());
        if (matches(s, s.feedback, c.value())) {
          s.convergeTo = null;
        } else {
          schedule(s.convergeBy, s);
        }
      }
    }
    reviewInterlock(s, now);
    return flush();
  }

  /** The driver could not deliver a command: it is handed over again when the driver is ready. */
  public PlaneOutput failed(Instant now, String commandId) {
    Slot s = byCommand.get(commandId);
    if (s != null) {
      for (Sent sent : s.unconfirmed) {
        if (sent.command.commandId().equals(commandId)) {
          sent.failed = true;
        }
      }
      dispatch(s, now);
    }
    return flush();
  }

  /** Runs whatever fell due: rate intervals, pulse ends, escalation and convergence bounds. */
  public PlaneOutput tick(Instant now) {
    Set<Slot> due = new LinkedHashSet<>();
    while (!dues.isEmpty() && !dues.peek().at().isAfter(now)) {
      due.add(slots.get(dues.poll().pointId()));
    }
    for (Slot s : due) {
      if (s.pulseOffAt != null && !now.isBefore(s.pulseOffAt)) {
        s.pulseOffAt = null;
        Value back = s.decided.or(s.spec::releaseValue).orElse(Value.FALSE);
        if (s.spec.pulseMax().isPresent() && back.equals(Value.TRUE)) {
          back = s.spec.releaseValue().orElse(Value.FALSE); // the claim stays; the energy does not
        }
        want(
            s,
            new Desired(back, Command.Kind.PULSE_OFF, s.pulseBand, s.pulseRule, Duration.ZERO),
            now);
      }
      dispatch(s, now);
      reviewInterlock(s, now);
      if (s.interlockSince != null
          && !s.escalated
          && !now.isBefore(s.interlockSince.plus(settings.interlockBound()))) {
        s.escalated = true;
        event(
            "interlock-unenforced",
            s.spec.id(),
            "interlock command not delivered within "
                + human(settings.interlockBound())
                + (s.driver.ready() ? "" : ": driver " + s.driver.name() + " is not ready"),
            now);
        selfPoints.add(new SelfPoint(unenforcedName(s), Value.TRUE, now));
      }
      if (s.convergeTo != null && !now.isBefore(s.convergeBy)) {
        event(
            "command-not-converged",
            s.spec.id(),
            "feedback is "
                + s.feedback
                + ", not "
                + s.convergeTo
                + ", "
                + human(settings.convergenceBound())
                + " after command "
                + s.convergeCommand,
            now);
        s.convergeTo = null;
      }
    }
    return flush();
  }

  /** When {@link #tick} next has something to do, if ever. */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(dues.peek()).map(Due::at);
  }

  /** Where a point's commands stand, for operators. */
  public Optional<PointCommands> status(String pointId) {
    Slot s = slots.get(pointId);
    if (s == null) {
      return Optional.empty();
    }
    return Optional.of(
        new PointCommands(
            pointId,
            Optional.ofNullable(s.lastHanded),
            s.lastHandedConfirmed,
            Optional.ofNullable(s.waiting).map(Desired::value),
            s.unconfirmed.size(),
            s.escalated));
  }

  /**
   * A point's command state.
   *
   * @param lastCommand the last command handed to the driver
   * @param delivered whether the driver confirmed it
   * @param waiting a newer value not yet handed over (rate interval, driver not ready)
   * @param unconfirmed commands handed over and not yet confirmed
   * @param interlockUnenforced whether an interlock command is escalated as unenforced
   */
  public record PointCommands(
      String pointId,
      Optional<Command> lastCommand,
      boolean delivered,
      Optional<Value> waiting,
      int unconfirmed,
      boolean interlockUnenforced) {}

  private void want(Slot s, Desired d, Instant now) {
    Command last = s.lastHanded;
    boolean sameAsLast =
        last != null
            && d.kind != Command.Kind.PULSE_ON // an action, not a state: a second pulse is new
            && last.value().equals(d.value)
            && last.kind() == d.kind
            && last.band().equals(d.band)
            && last.ruleId().equals(d.rule);
    // Back where the device was told to be before the waiting value could leave: nothing to send.
    s.waiting = sameAsLast ? null : d;
  }

  private void dispatch(Slot s, Instant now) {
    if (!s.driver.ready()) {
      return;
    }
    for (Sent sent : List.copyOf(s.unconfirmed)) {
      if (sent.failed) {
        sent.failed = false;
        s.driver.send(sent.command);
      }
    }
    Desired d = s.waiting;
    if (d == null) {
      return;
    }
    boolean bypass =
        d.band.filter(b -> b == Band.INTERLOCK).isPresent() || d.kind == Command.Kind.PULSE_OFF;
    Optional<Duration> interval = s.spec.commandMinInterval();
    if (!bypass && interval.isPresent() && s.lastHandedAt != null) {
      Instant allowed = s.lastHandedAt.plus(interval.get());
      if (now.isBefore(allowed)) {
        schedule(allowed, s);
        return;
      }
    }
    s.waiting = null;
    boolean energise = d.value.equals(Value.TRUE);
    if (!energise) {
      s.energisedSince = null;
    } else if (s.energisedSince == null) {
      s.energisedSince = now;
    }
    Instant pulseEnd = null;
    if (d.kind == Command.Kind.PULSE_ON) {
      pulseEnd = now.plus(d.pulse);
      if (s.pulseOffAt != null && s.pulseOffAt.isAfter(pulseEnd)) {
        pulseEnd = s.pulseOffAt; // a pulse during a pulse: the later end
      }
    } else if (energise && s.spec.pulseMax().isPresent()) {
      pulseEnd = s.energisedSince.plus(s.spec.pulseMax().get()); // a claim of true: pulse_max
    }
    if (pulseEnd != null && s.spec.pulseMax().isPresent()) {
      Instant cap = s.energisedSince.plus(s.spec.pulseMax().get());
      pulseEnd = pulseEnd.isAfter(cap) ? cap : pulseEnd;
    }
    Duration length =
        d.kind == Command.Kind.FADE
            ? d.pulse
            : d.kind == Command.Kind.PULSE_ON ? Duration.between(now, pulseEnd) : Duration.ZERO;
    Command c =
        new Command(
            s.spec.id() + "/" + bootId + "/" + ++s.seq,
            s.spec.id(),
            d.value,
            d.band,
            d.rule,
            d.kind,
            now,
            length);
    s.lastHanded = c;
    s.lastHandedConfirmed = false;
    s.lastHandedAt = now;
    s.convergeTo = null; // a newer command: the older one's convergence no longer matters
    // The device's pulse ends with the command handed over now, not with one only wanted: a value
    // that waits (rate interval, driver not ready) leaves a running pulse_max cut-off in place.
    s.pulseOffAt = pulseEnd;
    if (pulseEnd != null) {
      s.pulseBand = d.band;
      s.pulseRule = d.rule;
      schedule(pulseEnd, s);
    }
    s.unconfirmed.add(new Sent(c));
    byCommand.put(c.commandId(), s);
    s.driver.send(c);
  }

  /**
   * An interlock is enforced when the newest command for its point is an interlock command that the
   * driver confirmed. The bound runs from the moment an interlock command became the newest.
   */
  private void reviewInterlock(Slot s, Instant now) {
    Optional<Band> newestBand =
        s.waiting != null
            ? s.waiting.band
            : s.lastHanded != null ? s.lastHanded.band() : Optional.empty();
    boolean interlockNewest = newestBand.filter(b -> b == Band.INTERLOCK).isPresent();
    boolean enforced = interlockNewest && s.waiting == null && s.lastHandedConfirmed;
    if (!interlockNewest || enforced) {
      s.interlockSince = null;
      if (s.escalated) {
        s.escalated = false;
        event(
            enforced ? "interlock-enforced" : "interlock-superseded",
            s.spec.id(),
            enforced
                ? "interlock command " + s.lastHanded.commandId() + " delivered"
                : "the interlock claim gave way before its command was delivered",
            now);
        selfPoints.add(new SelfPoint(unenforcedName(s), Value.FALSE, now));
      }
      return;
    }
    if (s.interlockSince == null) {
      s.interlockSince = now;
      schedule(now.plus(settings.interlockBound()), s);
    }
  }

  /** 500ms, 5s, 2m: how a site writes durations. */
  private static String human(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  private static String unenforcedName(Slot s) {
    return "point." + s.spec.id() + ".interlock-unenforced";
  }

  private static boolean matches(Slot s, Value feedback, Value target) {
    if (feedback instanceof Value.Num f && target instanceof Value.Num t) {
      return Math.abs(f.value() - t.value()) <= s.spec.deadband();
    }
    return feedback.equals(target);
  }

  private void schedule(Instant at, Slot s) {
    dues.add(new Due(at, dueSeq++, s.spec.id()));
  }

  private void event(String kind, String subject, String message, Instant at) {
    events.add(new ControlEvent(kind, subject, message, at));
  }

  private PlaneOutput flush() {
    if (events.isEmpty() && selfPoints.isEmpty()) {
      return PlaneOutput.NONE;
    }
    PlaneOutput out = new PlaneOutput(events, selfPoints);
    events = new ArrayList<>();
    selfPoints = new ArrayList<>();
    return out;
  }

  private record Due(Instant at, long seq, String pointId) {}

  private record Desired(
      Value value, Command.Kind kind, Optional<Band> band, Optional<String> rule, Duration pulse) {}

  private static final class Sent {
    final Command command;
    boolean failed;

    Sent(Command command) {
      this.command = command;
    }
  }

  /** One claimable point's delivery state. */
  private static final class Slot {
    final PointSpec spec;
    final Driver driver;
    final ArrayDeque<Sent> unconfirmed = new ArrayDeque<>();
    long seq;
    Desired waiting;
    Command lastHanded;
    boolean lastHandedConfirmed;
    Instant lastHandedAt;
    Optional<Value> decided = Optional.empty();
    Instant pulseOffAt;
    Instant energisedSince;
    Optional<Band> pulseBand = Optional.empty();
    Optional<String> pulseRule = Optional.empty();
    Instant interlockSince;
    boolean escalated;
    Value feedback = Value.ABSENT;
    Value convergeTo;
    Instant convergeBy;
    String convergeCommand;

    Slot(PointSpec spec, Driver driver) {
      this.spec = spec;
      this.driver = driver;
    }
  }
}
