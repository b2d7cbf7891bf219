package io.sentinel.point;

import java.time.Duration;

/** Where an input point's samples come from (the adapters read this; the core does not). */
public sealed interface PointSource {
  /** A digital input pin, with its pull resistor and debounce. */
  record Gpio(int pin, String pull, Duration debounce) implements PointSource {}

  /** A third-party topic whose JSON payload holds the value at {@code jsonPath}. */
  record Mqtt(String topic, String jsonPath) implements PointSource {}
}
