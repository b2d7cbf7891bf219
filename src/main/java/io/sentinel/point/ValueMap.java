package io.sentinel.point;

import java.util.List;
import java.util.Optional;

/**
 * How a device spells a point's values (docs/devices.md): Tasmota's {@code "ON"}/{@code "OFF"}, a
 * contact's {@code "open"}/{@code "closed"}, an alarm panel's numeric codes. Each entry pairs the
 * device's spelling, as text ({@code 1} and {@code "1"} are one spelling), with the point's value.
 * The registry checks at load that every value is the point's type and that the map covers it.
 */
public record ValueMap(List<Entry> entries) {
  public ValueMap {
    entries = List.copyOf(entries);
  }

  /** One spelling and the point value it stands for. */
  public record Entry(String device, Value value) {}

  /** The point's value for what the device sent, if the map has it. */
  public Optional<Value> toPoint(String device) {
    for (Entry e : entries) {
      if (e.device().equals(device)) {
        return Optional.of(e.value());
      }
    }
    return Optional.empty();
  }

  /** The device's spelling of a point value (the first entry for it), if the map has it. */
  public Optional<String> toDevice(Value value) {
    for (Entry e : entries) {
      if (e.value().equals(value)) {
        return Optional.of(e.device());
      }
    }
    return Optional.empty();
  }

  /** The spellings, for messages: {@code ON, OFF}. */
  public String spellings() {
    return String.join(", ", entries.stream().map(Entry::device).toList());
  }

  /**
   * A decoded JSON scalar as the map's text: a string as it is, {@code true}/{@code false}, a
   * number without a fraction as an integer ({@code 1.0} is {@code 1}).
   */
  public static String spellingOf(Object raw) {
    if (raw instanceof Number n) {
      double d = n.doubleValue();
      return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
    return String.valueOf(raw);
  }
}
