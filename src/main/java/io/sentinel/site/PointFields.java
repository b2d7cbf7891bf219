package io.sentinel.site;

import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.site.yaml.PointShapes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/** The parts of a registry entry: its type and unit, range, source and driver. */
final class PointFields {
  private PointFields() {}

  static Optional<PointType> type(YamlFile yaml, Fields f, String what) {
    Optional<String> t = f.get("type").flatMap(n -> yaml.text(n, what + " type", ""));
    if (t.isEmpty()) {
      if (!f.has("type")) {
        yaml.error(
            f.node(),
            SiteCodes.REG_002,
            "",
            what + ": type (bool, number, enum, string) is missing");
      }
      return Optional.empty();
    }
    Node typeNode = f.get("type").orElseThrow();
    switch (t.get()) {
      case "bool":
        return Optional.of(new PointType.Bool());
      case "string":
        return Optional.of(new PointType.Text());
      case "number":
        {
          String symbol = f.get("unit").flatMap(n -> yaml.text(n, what + " unit", "")).orElse("");
          Optional<MeasureUnit> unit = MeasureUnit.parse(symbol);
          if (unit.isEmpty()) {
            yaml.error(
                f.get("unit").orElseThrow(),
                SiteCodes.REG_008,
                "",
                what
                    + ": unknown unit '"
                    + symbol
                    + "'; known units: "
                    + String.join(", ", new java.util.TreeSet<>(MeasureUnit.symbols())));
            return Optional.empty();
          }
          return Optional.of(new PointType.Number(unit.get()));
        }
      case "enum":
        {
          List<String> values = new ArrayList<>();
          f.get("values")
              .flatMap(n -> yaml.sequence(n, what + " values", ""))
              .ifPresent(
                  l -> l.forEach(v -> yaml.text(v, what + " values", "").ifPresent(values::add)));
          if (values.isEmpty()) {
            yaml.error(
                typeNode,
                SiteCodes.REG_009,
                "",
                what + ": an enum point needs a non-empty values list");
            return Optional.empty();
          }
          return Optional.of(new PointType.Enum(values));
        }
      default:
        yaml.error(
            typeNode,
            SiteCodes.REG_010,
            "",
            what + ": type '" + t.get() + "' is not bool, number, enum or string");
        return Optional.empty();
    }
  }

  static Optional<PointSpec.Range> range(YamlFile yaml, Node node, String what) {
    Optional<List<Node>> l = yaml.sequence(node, what + " range", "");
    if (l.isEmpty() || l.get().size() != 2) {
      l.ifPresent(x -> yaml.error(node, SiteCodes.REG_011, "", what + ": range is [min, max]"));
      return Optional.empty();
    }
    Optional<Double> min = yaml.number(l.get().get(0), what + " range min", "");
    Optional<Double> max = yaml.number(l.get().get(1), what + " range max", "");
    if (min.isEmpty() || max.isEmpty()) {
      return Optional.empty();
    }
    if (min.get() > max.get()) {
      yaml.error(node, SiteCodes.REG_011, "", what + ": range min is above max");
      return Optional.empty();
    }
    return Optional.of(new PointSpec.Range(min.get(), max.get()));
  }

  static Optional<PointSource> source(YamlFile yaml, Node node, String what) {
    Optional<Fields> f = yaml.mapping(node, what + " source", "", PointShapes.SOURCE.keys());
    if (f.isEmpty()) {
      return Optional.empty();
    }
    if (f.get().entries().size() != 1) {
      yaml.error(node, SiteCodes.REG_012, "", what + ": source names exactly one of gpio or mqtt");
      return Optional.empty();
    }
    if (f.get().has("gpio")) {
      return yaml.mapping(
              f.get().get("gpio").orElseThrow(),
              what + " source.gpio",
              "",
              PointShapes.SOURCE_GPIO.keys())
          .flatMap(
              g -> {
                Optional<Integer> pin = GpioPins.pin(yaml, g, what, "source.gpio");
                if (pin.isEmpty()) {
                  return Optional.empty();
                }
                String pull = g.get("pull").flatMap(n -> yaml.text(n, "pull", "")).orElse("none");
                if (!Set.of("up", "down", "none").contains(pull)) {
                  yaml.error(
                      g.get("pull").orElseThrow(),
                      SiteCodes.REG_014,
                      "",
                      what + ": pull is up, down or none");
                }
                Duration debounce =
                    g.get("debounce")
                        .flatMap(n -> yaml.duration(n, "debounce", ""))
                        .orElse(Duration.ZERO);
                boolean activeLow =
                    g.get("active_low").flatMap(n -> yaml.bool(n, "active_low", "")).orElse(false);
                return Optional.of(new PointSource.Gpio(pin.get(), pull, debounce, activeLow));
              });
    }
    return yaml.mapping(
            f.get().get("mqtt").orElseThrow(),
            what + " source.mqtt",
            "",
            PointShapes.SOURCE_MQTT.keys())
        .flatMap(
            m -> {
              Optional<String> topic = m.get("topic").flatMap(n -> yaml.text(n, "topic", ""));
              if (topic.isEmpty()) {
                if (!m.has("topic")) {
                  yaml.error(m.node(), SiteCodes.REG_015, "", what + ": source.mqtt needs a topic");
                }
                return Optional.empty();
              }
              String path =
                  m.get("json_path").flatMap(n -> yaml.text(n, "json_path", "")).orElse("$");
              Optional<PointSource.DeviceTimestamp> ts =
                  m.get("timestamp").flatMap(n -> deviceTimestamp(yaml, n, what));
              return Optional.of(new PointSource.Mqtt(topic.get(), path, ts));
            });
  }

  /** {@code source.mqtt.timestamp}: where the payload carries the device's time (docs/live.md). */
  private static Optional<PointSource.DeviceTimestamp> deviceTimestamp(
      YamlFile yaml, Node node, String what) {
    return yaml.mapping(
            node, what + " source.mqtt.timestamp", "", PointShapes.SOURCE_TIMESTAMP.keys())
        .flatMap(
            t -> {
              Optional<String> path =
                  t.get("json_path").flatMap(n -> yaml.text(n, "json_path", ""));
              if (path.isEmpty()) {
                if (!t.has("json_path")) {
                  yaml.error(
                      t.node(),
                      SiteCodes.REG_120,
                      "",
                      what + ": source.mqtt.timestamp needs a json_path");
                }
                return Optional.empty();
              }
              String format =
                  t.get("format").flatMap(n -> yaml.text(n, "format", "")).orElse("iso8601");
              for (PointSource.TimeFormat f : PointSource.TimeFormat.values()) {
                if (f.wireName().equals(format)) {
                  return Optional.of(new PointSource.DeviceTimestamp(path.get(), f));
                }
              }
              yaml.error(
                  t.get("format").orElseThrow(),
                  SiteCodes.REG_120,
                  "",
                  what
                      + ": source.mqtt.timestamp format is iso8601, epoch_s or epoch_ms, not "
                      + format);
              return Optional.empty();
            });
  }

  static Optional<PointDriver> driver(YamlFile yaml, Node node, String what) {
    Optional<Fields> f = yaml.mapping(node, what + " driver", "", PointShapes.DRIVER.keys());
    if (f.isEmpty()) {
      return Optional.empty();
    }
    if (f.get().entries().size() != 1) {
      yaml.error(node, SiteCodes.REG_016, "", what + ": driver names exactly one of gpio or mqtt");
      return Optional.empty();
    }
    if (f.get().has("gpio")) {
      return yaml.mapping(
              f.get().get("gpio").orElseThrow(),
              what + " driver.gpio",
              "",
              PointShapes.DRIVER_GPIO.keys())
          .flatMap(
              g -> {
                Optional<Integer> pin = GpioPins.pin(yaml, g, what, "driver.gpio");
                if (pin.isEmpty()) {
                  return Optional.empty();
                }
                boolean activeLow =
                    g.get("active_low").flatMap(n -> yaml.bool(n, "active_low", "")).orElse(false);
                return Optional.of(new PointDriver.Gpio(pin.get(), activeLow));
              });
    }
    Node mqtt = f.get().get("mqtt").orElseThrow();
    if (YamlFile.isNull(mqtt)) {
      return Optional.of(new PointDriver.Mqtt(Optional.empty()));
    }
    return yaml.mapping(mqtt, what + " driver.mqtt", "", PointShapes.DRIVER_MQTT.keys())
        .map(m -> new PointDriver.Mqtt(m.get("topic").flatMap(n -> yaml.text(n, "topic", ""))));
  }
}
