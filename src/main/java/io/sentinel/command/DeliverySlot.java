package io.sentinel.command;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Optional;

/** One claimable point's delivery state in the command plane. Only the plane changes it. */
final class DeliverySlot {
  /** A command wanted for the point, not yet handed to its driver. */
  record Desired(
      Value value, Command.Kind kind, Optional<Band> band, Optional<String> rule, Duration pulse) {}

  /** A command handed to the driver and not yet confirmed. */
  static final class Sent {
    final Command command;
    boolean failed;

    Sent(Command command) {
      this.command = command;
    }
  }

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

  /** A delivered command's value was not reached in time, and no feedback has reached one since. */
  boolean notConverged;

  DeliverySlot(PointSpec spec, Driver driver) {
    this.spec = spec;
    this.driver = driver;
  }
}
