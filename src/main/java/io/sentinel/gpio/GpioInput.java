package io.sentinel.gpio;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalInput;
import com.pi4j.io.gpio.digital.DigitalState;
import com.pi4j.io.gpio.digital.PullResistance;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One input pin of the {@link GpioAdapter}: its debounce and its last reported value. Used on the
 * adapter's thread only.
 */
final class GpioInput {
  final PointSpec spec;
  final PointSource.Gpio gpio;
  private DigitalInput io;
  private Boolean reported;
  private ScheduledFuture<?> settle;

  GpioInput(PointSpec spec, PointSource.Gpio gpio) {
    this.spec = spec;
    this.gpio = gpio;
  }

  /**
   * Provisions the pin on {@code c}; each edge runs {@code onEdge} on {@code thread}. Pi4J's own
   * debounce is off: the adapter debounces, the same way on every platform.
   */
  void open(Context c, ScheduledExecutorService thread, Runnable onEdge) {
    io =
        c.create(
            DigitalInput.newConfigBuilder(c)
                .id(GpioAdapter.ioId(gpio.pin()))
                .name(spec.id())
                .address(gpio.pin())
                .pull(pull(gpio.pull()))
                .debounce(0L)
                .build());
    io.addListener(event -> thread.execute(onEdge));
  }

  /** A change on the pin: {@code report} runs once the new level has held for the debounce time. */
  void edge(ScheduledExecutorService thread, Runnable report) {
    GpioOutput.cancel(settle);
    Duration debounce = gpio.debounce();
    if (debounce.isZero()) {
      report.run();
    } else {
      settle = thread.schedule(report, debounce.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** The pin's value as a sample at {@code now}; null when it bounced back to what was reported. */
  Sample read(Instant now) {
    boolean level = io.state() == DigitalState.HIGH;
    boolean value = level != gpio.activeLow();
    if (reported != null && reported == value) {
      return null;
    }
    reported = value;
    return Sample.live(spec.id(), Value.of(value), now);
  }

  /** Where the sample came from, as the listener is told: {@code gpio:17}. */
  String source() {
    return "gpio:" + gpio.pin();
  }

  private static PullResistance pull(String pull) {
    return switch (pull) {
      case "up" -> PullResistance.PULL_UP;
      case "down" -> PullResistance.PULL_DOWN;
      default -> PullResistance.OFF;
    };
  }
}
