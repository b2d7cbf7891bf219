package io.sentinel.gpio;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalOutput;
import com.pi4j.io.gpio.digital.DigitalState;

/**
 * A pin the engine loop toggles while it turns over (docs/standby.md, "while no core runs"): a
 * charge pump or a retriggerable watchdog relay on it holds the outputs' supply only while edges
 * keep coming, so a killed, hung or powered-off core drops every output in hardware. Low when it
 * opens and when it closes; on its own Pi4J context, so a site without GPIO points can have it.
 */
public final class HeartbeatPin implements AutoCloseable {
  private final Context context;
  private final DigitalOutput out;
  private final int pin;

  private HeartbeatPin(Context context, DigitalOutput out, int pin) {
    this.context = context;
    this.out = out;
    this.pin = pin;
  }

  /** Opens {@code pin} (BCM numbering) as an output, low, on {@code platform}. */
  public static HeartbeatPin open(GpioPlatform platform, int pin) {
    Context c = platform.newContext();
    try {
      DigitalOutput out =
          c.create(
              DigitalOutput.newConfigBuilder(c)
                  .id(GpioAdapter.ioId(pin))
                  .name("heartbeat")
                  .address(pin)
                  .initial(DigitalState.LOW)
                  .shutdown(DigitalState.LOW)
                  .build());
      return new HeartbeatPin(c, out, pin);
    } catch (RuntimeException e) {
      c.shutdown();
      throw new IllegalStateException(
          "SEN-GPIO-014 sentinel.heartbeat.pin " + pin + " cannot be driven: " + e.getMessage(), e);
    }
  }

  /** One edge; called from the engine's context only. */
  public void toggle() {
    out.toggle();
  }

  public int pin() {
    return pin;
  }

  /** The Pi4J context, for tests (the mock pin). */
  public Context context() {
    return context;
  }

  /** Low, and the platform shut down: the relay drops. */
  @Override
  public void close() {
    try {
      out.low();
    } finally {
      context.shutdown();
    }
  }
}
