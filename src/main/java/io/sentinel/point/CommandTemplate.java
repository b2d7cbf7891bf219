package io.sentinel.point;

import java.util.Optional;

/**
 * How a point's commands are spelled for the device that owns it (docs/devices.md), instead of
 * Sentinel's own command JSON: a literal ({@code TOGGLE}), the value's spelling in a value map
 * ({@code true: "ON"}), or a small template with {@code {{value}}} in it ({@code {"state":
 * "{{value}}"}}); with the QoS and retain flag the device's convention asks for.
 *
 * @param payload the template; empty: the value's spelling alone
 * @param map point value to the device's spelling; empty: the value as JSON writes it
 */
public record CommandTemplate(
    Optional<String> payload, Optional<ValueMap> map, int qos, boolean retain) {
  public static final String PLACEHOLDER = "{{value}}";

  /** Whether the template is JSON (an object or an array): its values are escaped as in JSON. */
  public boolean json() {
    String t = payload.orElse("").trim();
    return t.startsWith("{") || t.startsWith("[");
  }

  /** The payload for a value; empty when the value has no spelling (the load check prevents it). */
  public Optional<String> render(Value value) {
    Optional<String> spelled =
        map.isPresent() ? map.get().toDevice(value) : Optional.of(String.valueOf(value.toPlain()));
    if (spelled.isEmpty()) {
      return Optional.empty();
    }
    if (payload.isEmpty()) {
      return spelled;
    }
    String inserted = json() ? JsonText.escaped(spelled.get()) : spelled.get();
    return Optional.of(payload.get().replace(PLACEHOLDER, inserted));
  }
}
