package io.sentinel.point;

import java.time.Duration;

/** Where an input point's samples come from (the adapters read this; the core does not). */
public sealed interface PointSource {
  /**
   * A digital input pin (BCM number), with its pull resistor ({@code up}, {@code down}, {@code
   * none}) and debounce; {@code activeLow}: the point is true while the pin reads low (a contact to
   * ground with a pull-up).
   */
  record Gpio(int pin, String pull, Duration debounce, boolean activeLow) implements PointSource {}

  /** A third-party topic whose JSON payload holds the value at {@code jsonPath}. */
  record Mqtt(String topic, String jsonPath) implements PointSource {}
}
