package io.sentinel.mqtt;

import io.sentinel.point.PointSource;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Reads a device's own timestamp out of a third-party payload, in the form its mapping names
 * ({@code source.mqtt.timestamp}, docs/live.md). ISO 8601 must carry an offset (Zigbee2MQTT's
 * {@code last_seen: ISO_8601}); a local time without one (Tasmota's {@code Time}, Zigbee2MQTT's
 * {@code ISO_8601_local}) names no instant and is refused rather than guessed. Epoch seconds and
 * milliseconds are JSON numbers (Zigbee2MQTT's {@code last_seen: epoch} is milliseconds).
 */
final class DeviceClock {
  private DeviceClock() {}

  /** The instant, or what is wrong with {@code raw} as a {@code format} timestamp. */
  record Read(Instant instant, String problem) {}

  static Read read(Object raw, PointSource.TimeFormat format) {
    try {
      return switch (format) {
        case ISO8601 -> {
          if (!(raw instanceof String s)) {
            yield problem("an ISO 8601 timestamp is a string, found " + describe(raw));
          }
          try {
            yield new Read(
                OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant(), null);
          } catch (DateTimeParseException e) {
            yield problem(
                "not an ISO 8601 instant with an offset (such as 2026-11-30T10:00:00Z): "
                    + describe(raw));
          }
        }
        case EPOCH_S, EPOCH_MS -> {
          if (!(raw instanceof Number n) || !Double.isFinite(n.doubleValue())) {
            yield problem("an epoch timestamp is a number, found " + describe(raw));
          }
          double v = n.doubleValue();
          long millis = (long) (format == PointSource.TimeFormat.EPOCH_S ? v * 1000 : v);
          yield new Read(Instant.ofEpochMilli(millis), null);
        }
      };
    } catch (DateTimeException | ArithmeticException e) {
      return problem("out of range: " + describe(raw));
    }
  }

  private static Read problem(String message) {
    return new Read(null, message);
  }

  private static String describe(Object raw) {
    String s = String.valueOf(raw);
    return s.length() > 40 ? s.substring(0, 40) + "…" : s;
  }
}
