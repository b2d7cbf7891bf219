package io.sentinel.command;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Direction;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import java.time.Duration;
import java.time.Instant;
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
 *       CommandSettings#convergenceBound}, else {@code command-not-converged} and self point {@code
 *       point.<id>.not-converged} (true until feedback reaches a delivered value again: {@code
 *       command-converged}).
 * </ul>
 */
public final class CommandPlane {
  private final Map<String, DeliverySlot> slots = new LinkedHashMap<>();
  private final Map<String, DeliverySlot> byCommand = new HashMap<>();
  private final Map<String, Band> ruleBands = new HashMap<>();
  private final CommandSettings settings;
  private final String bootId;
  private final PriorityQueue<Due> dues =
      new PriorityQueue<>(Comparator.comparing(Due::at).thenComparingLong(Due::seq));
  private long dueSeq;
  private final PlaneReport report = new PlaneReport();
  private final Escalation escalation;

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
    this.escalation = new Escalation(settings, report, this::schedule);
    for (PointSpec spec : ruleSet.registry().points().values()) {
      if (spec.direction().claimable()) {
        slots.put(spec.id(), new DeliverySlot(spec, drivers.apply(spec)));
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
      DeliverySlot s = slots.get(t.pointId());
      if (s != null && s.spec.direction() == Direction.INOUT && t.valueChanged()) {
        s.feedback = t.current().value();
        if (s.convergeTo != null && matches(s, s.feedback, s.convergeTo)) {
          s.convergeTo = null;
        }
        if (s.lastHanded != null
            && s.lastHandedConfirmed
            && s.convergeTo == null
            && matches(s, s.feedback, s.lastHanded.value())) {
          escalation.converged(s, now);
        }
      }
    }
    Set<DeliverySlot> touched = new LinkedHashSet<>();
    PassResult asked =
        new PassResult(List.of(), List.of(), decisions, actions, List.of(), List.of());
    for (CommandRequest r :
        CommandRequest.of(now, asked, id -> Optional.ofNullable(ruleBands.get(id)))) {
      DeliverySlot s = slots.get(r.pointId());
      if (s == null) {
        continue;
      }
      if (r.kind() == Command.Kind.ASSERT || r.kind() == Command.Kind.RELEASE) {
        s.decided = r.value().isPresent() ? Optional.of(r.value()) : Optional.empty();
      }
      want(s, new DeliverySlot.Desired(r.value(), r.kind(), r.band(), r.ruleId(), r.length()), now);
      touched.add(s);
    }
    for (DeliverySlot s : touched) {
      dispatch(s, now);
      escalation.review(s, now);
    }
    return flush();
  }

  /**
   * A driver became ready (or stopped being): what waited for it is handed over now, interlock-band
   * commands before the others.
   */
  public PlaneOutput readinessChanged(Instant now, Driver driver) {
    // Interlock commands first: a fail-safe reaches its device before anything else that waited.
    for (boolean interlocks : new boolean[] {true, false}) {
      for (DeliverySlot s : slots.values()) {
        boolean interlock = s.waiting != null && s.waiting.band().orElse(null) == Band.INTERLOCK;
        if (s.driver == driver && interlock == interlocks) {
          dispatch(s, now);
          escalation.review(s, now);
        }
      }
    }
    return flush();
  }

  /** The driver confirmed a command (for MQTT: the broker acknowledged it at QoS 1). */
  public PlaneOutput delivered(Instant now, String commandId) {
    DeliverySlot s = byCommand.remove(commandId);
    if (s == null) {
      return flush(); // a second confirmation of a re-sent command
    }
    Command c = null;
    for (var it = s.unconfirmed.iterator(); it.hasNext(); ) {
      DeliverySlot.Sent sent = it.next();
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
          escalation.converged(s, now);
        } else {
          schedule(s.convergeBy, s);
        }
      }
    }
    escalation.review(s, now);
    return flush();
  }

  /** The driver could not deliver a command: it is handed over again when the driver is ready. */
  public PlaneOutput failed(Instant now, String commandId) {
    DeliverySlot s = byCommand.get(commandId);
    if (s != null) {
      for (DeliverySlot.Sent sent : s.unconfirmed) {
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
    Set<DeliverySlot> due = new LinkedHashSet<>();
    while (!dues.isEmpty() && !dues.peek().at().isAfter(now)) {
      due.add(slots.get(dues.poll().pointId()));
    }
    for (DeliverySlot s : due) {
      if (s.pulseOffAt != null && !now.isBefore(s.pulseOffAt)) {
        s.pulseOffAt = null;
        Value back = s.decided.or(s.spec::releaseValue).orElse(Value.FALSE);
        if (s.spec.pulseMax().isPresent() && back.equals(Value.TRUE)) {
          back = s.spec.releaseValue().orElse(Value.FALSE); // the claim stays; the energy does not
        }
        want(
            s,
            new DeliverySlot.Desired(
                back, Command.Kind.PULSE_OFF, s.pulseBand, s.pulseRule, Duration.ZERO),
            now);
      }
      dispatch(s, now);
      escalation.review(s, now);
      escalation.checkBounds(s, now);
    }
    return flush();
  }

  /** The self point that says an {@code inout} point's feedback did not reach its command. */
  public static String notConvergedPoint(String pointId) {
    return "point." + pointId + ".not-converged";
  }

  /** When {@link #tick} next has something to do, if ever. */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(dues.peek()).map(Due::at);
  }

  /** Where a point's commands stand, for operators. */
  public Optional<PointCommands> status(String pointId) {
    DeliverySlot s = slots.get(pointId);
    if (s == null) {
      return Optional.empty();
    }
    return Optional.of(
        new PointCommands(
            pointId,
            Optional.ofNullable(s.lastHanded),
            s.lastHandedConfirmed,
            Optional.ofNullable(s.waiting).map(DeliverySlot.Desired::value),
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

  private void want(DeliverySlot s, DeliverySlot.Desired d, Instant now) {
    Command last = s.lastHanded;
    boolean sameAsLast =
        last != null
            && d.kind() != Command.Kind.PULSE_ON // an action, not a state: a second pulse is new
            && last.value().equals(d.value())
            && last.kind() == d.kind()
            && last.band().equals(d.band())
            && last.ruleId().equals(d.rule());
    // Back where the device was told to be before the waiting value could leave: nothing to send.
    s.waiting = sameAsLast ? null : d;
  }

  private void dispatch(DeliverySlot s, Instant now) {
    if (!s.driver.ready()) {
      return;
    }
    for (DeliverySlot.Sent sent : List.copyOf(s.unconfirmed)) {
      if (sent.failed) {
        sent.failed = false;
        s.driver.send(sent.command);
      }
    }
    DeliverySlot.Desired d = s.waiting;
    if (d == null) {
      return;
    }
    boolean bypass =
        d.band().filter(b -> b == Band.INTERLOCK).isPresent() || d.kind() == Command.Kind.PULSE_OFF;
    Optional<Duration> interval = s.spec.commandMinInterval();
    if (!bypass && interval.isPresent() && s.lastHandedAt != null) {
      Instant allowed = s.lastHandedAt.plus(interval.get());
      if (now.isBefore(allowed)) {
        schedule(allowed, s);
        return;
      }
    }
    s.waiting = null;
    boolean energise = d.value().equals(Value.TRUE);
    if (!energise) {
      s.energisedSince = null;
    } else if (s.energisedSince == null) {
      s.energisedSince = now;
    }
    Instant pulseEnd = null;
    if (d.kind() == Command.Kind.PULSE_ON) {
      pulseEnd = now.plus(d.pulse());
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
        d.kind() == Command.Kind.FADE
            ? d.pulse()
            : d.kind() == Command.Kind.PULSE_ON ? Duration.between(now, pulseEnd) : Duration.ZERO;
    Command c =
        new Command(
            s.spec.id() + "/" + bootId + "/" + ++s.seq,
            s.spec.id(),
            d.value(),
            d.band(),
            d.rule(),
            d.kind(),
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
      s.pulseBand = d.band();
      s.pulseRule = d.rule();
      schedule(pulseEnd, s);
    }
    s.unconfirmed.add(new DeliverySlot.Sent(c));
    byCommand.put(c.commandId(), s);
    s.driver.send(c);
  }

  private static boolean matches(DeliverySlot s, Value feedback, Value target) {
    if (feedback instanceof Value.Num f && target instanceof Value.Num t) {
      return Math.abs(f.value() - t.value()) <= s.spec.deadband();
    }
    return feedback.equals(target);
  }

  private void schedule(Instant at, DeliverySlot s) {
    dues.add(new Due(at, dueSeq++, s.spec.id()));
  }

  private PlaneOutput flush() {
    return report.flush();
  }

  private record Due(Instant at, long seq, String pointId) {}
}
