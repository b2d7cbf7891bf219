package io.sentinel.site.yaml;

import static io.sentinel.site.yaml.Shape.choice;
import static io.sentinel.site.yaml.Shape.either;
import static io.sentinel.site.yaml.Shape.exactlyOne;
import static io.sentinel.site.yaml.Shape.keys;
import static io.sentinel.site.yaml.Shape.list;
import static io.sentinel.site.yaml.Shape.required;
import static io.sentinel.site.yaml.Shape.text;
import static io.sentinel.site.yaml.ShapeParts.FREE_TEXT;
import static io.sentinel.site.yaml.ShapeParts.ID_PATTERN;
import static io.sentinel.site.yaml.ShapeParts.duration;
import static io.sentinel.site.yaml.ShapeParts.ordered;
import static io.sentinel.site.yaml.ShapeParts.pointId;
import static io.sentinel.site.yaml.ShapeParts.replace;
import static io.sentinel.site.yaml.ShapeParts.value;
import static io.sentinel.site.yaml.ShapeParts.wireNames;

import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.site.yaml.Shape.Keys;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeSet;

/** The shapes of the registry (points.yaml) and of derived points (derived.yaml). */
public final class PointShapes {
  private PointShapes() {}

  // ---- the point registry -----------------------------------------------------------------------

  static final Shape GPIO_PIN =
      new Shape.Int("BCM pin number on the 40-pin header.", Optional.of(0L), Optional.of(27L));

  public static final Keys SOURCE_GPIO =
      required(
          keys(
              "A Raspberry Pi input pin.",
              "pin",
              GPIO_PIN,
              "pull",
              choice("The pin's pull resistor.", List.of("up", "down", "none")),
              "debounce",
              duration("How long a level must hold."),
              "active_low",
              new Shape.Flag("true: the point is true when the pin reads low.")),
          "pin");

  /** A value map on ingest: the device's spellings to the point's values (docs/devices.md). */
  static final Shape DEVICE_SPELLINGS =
      new Shape.NamedMap(
          "The device's spelling (ON, open, 3) to the point's value; it covers a bool or enum.",
          Optional.empty(),
          value(""));

  /** Where a third-party payload carries its device's timestamp (docs/live.md). */
  public static final Keys SOURCE_TIMESTAMP =
      required(
          keys(
              "Where the payload carries the device's own timestamp.",
              "json_path",
              text("Where the timestamp is: $.a.b or $.a[0] (Zigbee2MQTT: $.last_seen)."),
              "format",
              choice(
                  "iso8601 (with an offset, the default), epoch_s or epoch_ms.",
                  List.of("iso8601", "epoch_s", "epoch_ms"))),
          "json_path");

  public static final Keys SOURCE_MQTT =
      required(
          keys(
              "A third-party MQTT topic.",
              "topic",
              text("One exact topic (no wildcards)."),
              "json_path",
              text("Where the value is in the payload: $, $.a.b or $.a[0] (default $)."),
              "map",
              DEVICE_SPELLINGS,
              "timestamp",
              PointShapes.SOURCE_TIMESTAMP),
          "topic");

  public static final Keys SOURCE =
      exactlyOne(
          keys("Where the point's samples come from.", "gpio", SOURCE_GPIO, "mqtt", SOURCE_MQTT));

  public static final Keys DRIVER_GPIO =
      required(
          keys(
              "A Raspberry Pi output pin.",
              "pin",
              GPIO_PIN,
              "active_low",
              new Shape.Flag("true: the pin is low when the point is true.")),
          "pin");

  public static final Keys DRIVER_MQTT =
      keys(
          "Commands over MQTT.",
          "topic",
          text("The command topic (default sentinel/<site>/commands/<point>)."),
          "payload",
          text("The device's payload: a literal, or a template with {{value}} (docs/devices.md)."),
          "map",
          new Shape.NamedMap(
              "The point's value to the device's spelling (true: ON); it covers a bool or enum.",
              Optional.empty(),
              text("")),
          "qos",
          new Shape.Int(
              "The QoS of the device's commands (default 1).", Optional.of(0L), Optional.of(2L)),
          "retain",
          new Shape.Flag("Whether the device's commands are retained (default false)."));

  public static final Keys DRIVER =
      exactlyOne(
          keys(
              "What the point's commands go to.",
              "gpio",
              DRIVER_GPIO,
              "mqtt",
              either("", new Shape.Nothing("The default topic."), DRIVER_MQTT)));

  public static final Keys COMMAND_RATE =
      required(
          keys(
              "At most one command per interval.",
              "min_interval",
              duration("The shortest time between two commands.")),
          "min_interval");

  public static final Keys POINT =
      required(
          keys(
              "A registered point.",
              "type",
              choice("The type of its value.", List.of("bool", "number", "enum", "string")),
              "unit",
              choice(
                  "The unit of a number point.",
                  new TreeSet<>(MeasureUnit.symbols()).stream().filter(s -> !s.isEmpty()).toList()),
              "values",
              list("The values of an enum point.", text("")),
              "direction",
              choice(
                  "in: a sensor; out: an actuator; inout: an actuator that reports back.",
                  wireNames(Direction.values())),
              "deadband",
              new Shape.Num("Changes smaller than this are no change.", OptionalDouble.of(0)),
              "range",
              new Shape.ListOf(
                  "[min, max]: values outside are kept with quality bad.",
                  new Shape.Num("", OptionalDouble.empty()),
                  2,
                  Optional.of(2)),
              "stale_after",
              duration("No sample for this long: quality stale."),
              "unavailable_after",
              duration("No sample for this long: quality unavailable (longer than stale_after)."),
              "release_value",
              value("The value the point takes when no rule claims it."),
              "source",
              SOURCE,
              "driver",
              DRIVER,
              "command_rate",
              COMMAND_RATE,
              "pulse_max",
              duration("The longest pulse the output accepts."),
              "value_map",
              DEVICE_SPELLINGS,
              "description",
              FREE_TEXT),
          "type",
          "direction");

  // ---- derived points ---------------------------------------------------------------------------

  static final Keys DERIVED_COMMON =
      keys(
          "",
          "kind",
          text("What it computes."),
          "of",
          pointId("The point it reads."),
          "description",
          FREE_TEXT);

  public static final Keys DERIVED_STEP =
      keys(
          "One step of a sequence.",
          "of",
          pointId("The point the step watches (default: the sequence's of)."),
          "when",
          text("The step's condition over value and quality."));

  /** Derived point keys by the value of {@code kind}, the common ones included. */
  public static final Map<String, Keys> DERIVED_KINDS =
      derived(
          ordered(
              "hysteresis",
              required(
                  keys(
                      "true above on_above until below off_below.",
                      "on_above",
                      new Shape.Num("", OptionalDouble.empty()),
                      "off_below",
                      new Shape.Num("", OptionalDouble.empty())),
                  "on_above",
                  "off_below"),
              "debounce",
              required(
                  keys("The input once it has held for stable_for.", "stable_for", duration("")),
                  "stable_for"),
              "rolling_avg",
              required(
                  keys(
                      "The average over a window.",
                      "window",
                      duration(""),
                      "deadband",
                      new Shape.Num("", OptionalDouble.of(0))),
                  "window"),
              "rate",
              required(
                  keys(
                      "The change per second over a window.",
                      "window",
                      duration(""),
                      "deadband",
                      new Shape.Num("", OptionalDouble.of(0))),
                  "window"),
              "age",
              keys(
                  "Seconds since the input's last sample.",
                  "every",
                  duration("How often it is updated (default 1s).")),
              "count",
              required(
                  keys(
                      "true while when held at least at_least times within.",
                      "when",
                      text("The condition counted."),
                      "at_least",
                      new Shape.Int("", Optional.of(1L), Optional.empty()),
                      "within",
                      duration("")),
                  "at_least",
                  "within"),
              "sequence",
              required(
                  keys(
                      "true when the steps happen in order within.",
                      "steps",
                      new Shape.ListOf("", DERIVED_STEP, 2, Optional.empty()),
                      "within",
                      duration("")),
                  "steps",
                  "within"),
              "absence",
              required(
                  keys(
                      "true when when has not held for within.",
                      "when",
                      text("The condition expected."),
                      "within",
                      duration("")),
                  "within"),
              "dedupe",
              required(
                  keys("Repeats within the window dropped.", "within", duration("")), "within"),
              "throttle",
              required(
                  keys(
                      "At most at_most changes per period.",
                      "at_most",
                      new Shape.Int("", Optional.of(1L), Optional.empty()),
                      "per",
                      duration("")),
                  "at_most",
                  "per")));

  // ---- files ------------------------------------------------------------------------------------

  static final Shape POINTS_MAP =
      new Shape.NamedMap(
          "Point id to its entry.", Optional.of(ID_PATTERN), new Shape.Ref("point", ""));

  static final Shape DERIVED_MAP =
      new Shape.NamedMap(
          "Derived point id to its definition.",
          Optional.of(ID_PATTERN),
          new Shape.Ref("derived_point", ""));

  public static final Keys REGISTRY_FILE =
      required(keys("points.yaml: the point registry.", "points", POINTS_MAP), "points");

  public static final Keys DERIVED_FILE =
      required(keys("derived.yaml: derived points.", "derived", DERIVED_MAP), "derived");

  private static Map<String, Keys> derived(Map<String, Keys> kinds) {
    Map<String, Keys> m = new LinkedHashMap<>();
    kinds.forEach(
        (kind, k) -> {
          Keys common =
              new Keys(
                  "",
                  replace(DERIVED_COMMON.properties(), "kind", choice("", List.of(kind))),
                  new LinkedHashSet<>(
                      kind.equals("sequence") ? List.of("kind") : List.of("kind", "of")),
                  false);
          m.put(kind, common.with(k));
        });
    return java.util.Collections.unmodifiableMap(m);
  }
}
