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

  /**
   * A third-party topic whose JSON payload holds the value at {@code jsonPath}, and the device's
   * own timestamp where {@code timestamp} says (docs/live.md).
   */
  record Mqtt(String topic, String jsonPath, java.util.Optional<DeviceTimestamp> timestamp)
      implements PointSource {
    public Mqtt(String topic, String jsonPath) {
      this(topic, jsonPath, java.util.Optional.empty());
    }
  }

  /** Where a payload carries the time the device took its reading, and in which form. */
  record DeviceTimestamp(String jsonPath, TimeFormat format) {}

  /** ISO 8601 with an offset ({@code 2026-11-30T10:00:00Z}), or epoch seconds or milliseconds. */
  enum TimeFormat {
    ISO8601,
    EPOCH_S,
    EPOCH_MS;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
