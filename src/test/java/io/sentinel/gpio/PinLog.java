package io.sentinel.gpio;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalOutput;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The instants an output pin changed, read from Pi4J's own change events (tests on mock pins). */
public final class PinLog {
  private final List<Long> at = new CopyOnWriteArrayList<>();

  private PinLog() {}

  /** Starts listening to the output on {@code pin} of a context the adapter opened. */
  public static PinLog of(Context context, int pin) {
    PinLog log = new PinLog();
    context
        .io(GpioAdapter.ioId(pin), DigitalOutput.class)
        .addListener(e -> log.at.add(System.nanoTime()));
    return log;
  }

  /** When the pin last changed (System.nanoTime), if it has. */
  public java.util.Optional<Long> last() {
    return at.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(at.get(at.size() - 1));
  }

  public int changes() {
    return at.size();
  }

  /** Between the first change (energised) and the second (de-energised). */
  public Duration energised() {
    return Duration.ofNanos(at.get(1) - at.get(0));
  }
}
