package io.sentinel.gpio;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalOutput;
import com.pi4j.io.gpio.digital.DigitalState;
import io.sentinel.command.Command;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * One output pin of the {@link GpioAdapter} and what the adapter knows of it: its level, its safe
 * state, and for a point with {@code pulse_max} the adapter's own timer that de-energises it. Used
 * on the adapter's thread only.
 */
final class GpioOutput {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gpio");

  final PointSpec spec;
  final PointDriver.Gpio gpio;

  /** The output's safe state: its {@code release_value}, else off. */
  final boolean safe;

  private final ScheduledExecutorService thread;
  private final InstantSource clock;
  private final Consumer<PulseCut> onCut;
  private DigitalOutput io;
  private boolean on;
  private Instant onSince;
  private Instant pulseEnd;

  /** The latest end a pulse asked for, past pulse_max or not; null when held on with no end. */
  private Instant askedEnd;

  private ScheduledFuture<?> offTimer;

  GpioOutput(
      PointSpec spec,
      PointDriver.Gpio gpio,
      ScheduledExecutorService thread,
      InstantSource clock,
      Consumer<PulseCut> onCut) {
    this.spec = spec;
    this.gpio = gpio;
    this.safe = spec.releaseValue().map(Value.TRUE::equals).orElse(false);
    this.thread = thread;
    this.clock = clock;
    this.onCut = onCut;
  }

  /** Provisions the pin on {@code c}, in its safe state from the first instant and at shutdown. */
  void open(Context c) {
    DigitalState safeLevel = physical(safe);
    io =
        c.create(
            DigitalOutput.newConfigBuilder(c)
                .id(GpioAdapter.ioId(gpio.pin()))
                .name(spec.id())
                .address(gpio.pin())
                .initial(safeLevel)
                .shutdown(safeLevel)
                .build());
    io.state(safeLevel);
    on = safe;
  }

  /**
   * The level a command's value asks for: true or false, the safe state for a release without a
   * release value (no value); null for a value that is not a bool.
   */
  Boolean levelFor(Value value) {
    if (value.equals(Value.TRUE)) {
      return true;
    } else if (value.equals(Value.FALSE)) {
      return false;
    }
    return value.isPresent() ? null : safe;
  }

  /**
   * Sets the output; for a point with pulse_max, arms the timer that de-energises it: at the end of
   * a pulse, or at {@code pulse_max} after it was energised, whichever comes first. A command that
   * keeps it energised never moves that bound.
   */
  void drive(boolean on, Command c) {
    Instant now = clock.instant();
    if (on && spec.pulseMax().isPresent()) {
      if (!this.on) {
        onSince = now;
        pulseEnd = null;
        askedEnd = null;
      }
      Instant cap = onSince.plus(spec.pulseMax().get());
      Instant end = cap;
      if (c.kind() == Command.Kind.PULSE_ON && !c.ramp().isZero() && !c.ramp().isNegative()) {
        Instant asked = now.plus(c.ramp());
        if (pulseEnd != null && pulseEnd.isAfter(asked)) {
          asked = pulseEnd; // a pulse during a pulse: the later end
        }
        if (askedEnd == null || askedEnd.isBefore(asked)) {
          askedEnd = asked;
        }
        end = asked.isAfter(cap) ? cap : asked;
        pulseEnd = end;
      } else {
        askedEnd = null; // held on, with no end of its own
      }
      cancel(offTimer);
      // A cut only when more was asked than pulse_max allows, not a pulse that ends right at it.
      boolean cut = end.equals(cap) && (askedEnd == null || askedEnd.isAfter(cap));
      offTimer =
          thread.schedule(
              () -> deEnergise(cut),
              Math.max(0, Duration.between(now, end).toNanos()),
              TimeUnit.NANOSECONDS);
    } else if (!on) {
      cancel(offTimer);
      pulseEnd = null;
      askedEnd = null;
    }
    io.state(physical(on));
    this.on = on;
  }

  private void deEnergise(boolean atPulseMax) {
    if (!on || io == null) {
      return;
    }
    try {
      io.state(physical(false));
      on = false;
      pulseEnd = null;
      if (atPulseMax) {
        Instant now = clock.instant();
        PulseCut cut =
            new PulseCut(
                spec.id(),
                gpio.pin(),
                spec.pulseMax().orElseThrow(),
                Duration.between(onSince, now),
                Optional.ofNullable(askedEnd).map(end -> Duration.between(onSince, end)),
                now);
        LOG.infof("SEN-GPIO-020 %s", cut.message());
        onCut.accept(cut);
      }
      askedEnd = null;
    } catch (RuntimeException e) {
      LOG.errorf(
          "SEN-GPIO-021 %s (pin %d) could not be de-energised: %s", spec.id(), gpio.pin(), e);
    }
  }

  /** To its safe state, if it was provisioned; {@code why} names the occasion in a failure. */
  void toSafe(String why) {
    if (io == null) {
      return;
    }
    cancel(offTimer);
    try {
      io.state(physical(safe));
      on = safe;
    } catch (RuntimeException e) {
      LOG.errorf(
          "SEN-GPIO-011 %s (pin %d) not put in its safe state (%s): %s",
          spec.id(), gpio.pin(), why, e);
    }
  }

  private DigitalState physical(boolean level) {
    return level != gpio.activeLow() ? DigitalState.HIGH : DigitalState.LOW;
  }

  static void cancel(Future<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }
}
