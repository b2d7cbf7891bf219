package io.sentinel.rule;

import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.rule.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;

/** Reads {@code points.yaml}: the point registry of a site. */
public final class RegistryLoader {
  private static final Pattern POINT_ID = Pattern.compile("[a-z0-9][a-z0-9_-]*(\\.[a-z0-9_-]+)*");
  private static final Set<String> POINT_KEYS =
      Set.of(
          "type",
          "unit",
          "values",
          "direction",
          "deadband",
          "range",
          "stale_after",
          "unavailable_after",
          "release_value",
          "source",
          "driver",
          "command_rate",
          "pulse_max",
          "description");

  private RegistryLoader() {}

  public static Registry load(String file, String text, Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    return yaml.parse(text)
        .flatMap(root -> yaml.mapping(root, "points.yaml", "", Set.of("points")))
        .flatMap(top -> top.get("points"))
        .map(points -> fromNode(yaml, points))
        .orElse(Registry.of(List.of()));
  }

  /** The registry of an already parsed {@code points:} mapping (a revision document's). */
  public static Registry fromNode(YamlFile yaml, Node pointsNode) {
    List<PointSpec> specs = new ArrayList<>();
    yaml.mapping(pointsNode, "points", "", Set.of())
        .ifPresent(
            points ->
                points
                    .entries()
                    .forEach(
                        (id, node) ->
                            point(yaml, id, points.keyNode(id), node).ifPresent(specs::add)));
    return Registry.of(specs);
  }

  private static Optional<PointSpec> point(YamlFile yaml, String id, Node keyNode, Node node) {
    String what = "point " + id;
    if (!POINT_ID.matcher(id).matches()) {
      yaml.error(
          keyNode,
          "REG-001",
          "",
          what + ": a point id is lower-case dot-separated words (letters, digits, - and _)");
    }
    Optional<Fields> maybe = yaml.mapping(node, what, "", POINT_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    Optional<PointType> type = type(yaml, f, what);
    Direction direction =
        f.get("direction")
            .flatMap(n -> yaml.text(n, what + " direction", ""))
            .map(
                d ->
                    Direction.parse(d)
                        .orElseGet(
                            () -> {
                              yaml.error(
                                  f.get("direction").orElseThrow(),
                                  "REG-003",
                                  "",
                                  what + ": direction '" + d + "' is not in, out or inout");
                              return Direction.IN;
                            }))
            .orElseGet(
                () -> {
                  yaml.error(
                      f.node(), "REG-004", "", what + ": direction (in, out, inout) is missing");
                  return Direction.IN;
                });
    double deadband =
        f.get("deadband").flatMap(n -> yaml.number(n, what + " deadband", "")).orElse(0.0);
    Optional<PointSpec.Range> range = f.get("range").flatMap(n -> range(yaml, n, what));
    Optional<Duration> staleAfter =
        f.get("stale_after").flatMap(n -> yaml.duration(n, "stale_after", ""));
    Optional<Duration> unavailableAfter =
        f.get("unavailable_after").flatMap(n -> yaml.duration(n, "unavailable_after", ""));
    if (staleAfter.isPresent()
        && unavailableAfter.isPresent()
        && unavailableAfter.get().compareTo(staleAfter.get()) <= 0) {
      yaml.error(
          f.get("unavailable_after").orElseThrow(),
          "REG-005",
          "",
          what + ": unavailable_after must be longer than stale_after");
    }
    if (deadband < 0) {
      yaml.error(
          f.get("deadband").orElseThrow(), "REG-006", "", what + ": deadband must not be negative");
    }
    Optional<PointSource> source = f.get("source").flatMap(n -> source(yaml, n, what));
    Optional<PointDriver> driver = f.get("driver").flatMap(n -> driver(yaml, n, what));
    if (driver.isPresent() && !direction.claimable()) {
      yaml.error(
          f.keyNode("driver"),
          "REG-007",
          "",
          what + ": an input point (direction in) has no driver");
    }
    Optional<Duration> minInterval =
        f.get("command_rate")
            .flatMap(n -> yaml.mapping(n, what + " command_rate", "", Set.of("min_interval")))
            .flatMap(c -> c.get("min_interval"))
            .flatMap(n -> yaml.duration(n, "command_rate.min_interval", ""));
    Optional<Duration> pulseMax =
        f.get("pulse_max").flatMap(n -> yaml.duration(n, "pulse_max", ""));
    if (type.isEmpty()) {
      return Optional.empty();
    }
    PointSpec base =
        new PointSpec(
            id,
            type.get(),
            direction,
            deadband,
            range,
            staleAfter,
            unavailableAfter,
            Optional.empty(),
            source,
            driver,
            minInterval,
            pulseMax,
            new SourceRef(yaml.file(), YamlFile.line(keyNode)));
    Optional<Value> release =
        f.get("release_value").flatMap(n -> ValueReader.read(yaml, n, base, "release_value", ""));
    return Optional.of(release.map(base::withReleaseValue).orElse(base));
  }

  private static Optional<PointType> type(YamlFile yaml, Fields f, String what) {
    Optional<String> t = f.get("type").flatMap(n -> yaml.text(n, what + " type", ""));
    if (t.isEmpty()) {
      if (!f.has("type")) {
        yaml.error(
            f.node(), "REG-002", "", what + ": type (bool, number, enum, string) is missing");
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
                "REG-008",
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
                typeNode, "REG-009", "", what + ": an enum point needs a non-empty values list");
            return Optional.empty();
          }
          return Optional.of(new PointType.Enum(values));
        }
      default:
        yaml.error(
            typeNode,
            "REG-010",
            "",
            what + ": type '" + t.get() + "' is not bool, number, enum or string");
        return Optional.empty();
    }
  }

  private static Optional<PointSpec.Range> range(YamlFile yaml, Node node, String what) {
    Optional<List<Node>> l = yaml.sequence(node, what + " range", "");
    if (l.isEmpty() || l.get().size() != 2) {
      l.ifPresent(x -> yaml.error(node, "REG-011", "", what + ": range is [min, max]"));
      return Optional.empty();
    }
    Optional<Double> min = yaml.number(l.get().get(0), what + " range min", "");
    Optional<Double> max = yaml.number(l.get().get(1), what + " range max", "");
    if (min.isEmpty() || max.isEmpty()) {
      return Optional.empty();
    }
    if (min.get() > max.get()) {
      yaml.error(node, "REG-011", "", what + ": range min is above max");
      return Optional.empty();
    }
    return Optional.of(new PointSpec.Range(min.get(), max.get()));
  }

  private static Optional<PointSource> source(YamlFile yaml, Node node, String what) {
    Optional<Fields> f = yaml.mapping(node, what + " source", "", Set.of("gpio", "mqtt"));
    if (f.isEmpty()) {
      return Optional.empty();
    }
    if (f.get().entries().size() != 1) {
      yaml.error(node, "REG-012", "", what + ": source names exactly one of gpio or mqtt");
      return Optional.empty();
    }
    if (f.get().has("gpio")) {
      return yaml.mapping(
              f.get().get("gpio").orElseThrow(),
              what + " source.gpio",
              "",
              Set.of("pin", "pull", "debounce"))
          .flatMap(
              g -> {
                Optional<Double> pin = g.get("pin").flatMap(n -> yaml.number(n, "pin", ""));
                if (pin.isEmpty()) {
                  if (!g.has("pin")) {
                    yaml.error(g.node(), "REG-013", "", what + ": source.gpio needs a pin");
                  }
                  return Optional.empty();
                }
                String pull = g.get("pull").flatMap(n -> yaml.text(n, "pull", "")).orElse("none");
                if (!Set.of("up", "down", "none").contains(pull)) {
                  yaml.error(
                      g.get("pull").orElseThrow(),
                      "REG-014",
                      "",
                      what + ": pull is up, down or none");
                }
                Duration debounce =
                    g.get("debounce")
                        .flatMap(n -> yaml.duration(n, "debounce", ""))
                        .orElse(Duration.ZERO);
                return Optional.of(new PointSource.Gpio(pin.get().intValue(), pull, debounce));
              });
    }
    return yaml.mapping(
            f.get().get("mqtt").orElseThrow(),
            what + " source.mqtt",
            "",
            Set.of("topic", "json_path"))
        .flatMap(
            m -> {
              Optional<String> topic = m.get("topic").flatMap(n -> yaml.text(n, "topic", ""));
              if (topic.isEmpty()) {
                if (!m.has("topic")) {
                  yaml.error(m.node(), "REG-015", "", what + ": source.mqtt needs a topic");
                }
                return Optional.empty();
              }
              String path =
                  m.get("json_path").flatMap(n -> yaml.text(n, "json_path", "")).orElse("$");
              return Optional.of(new PointSource.Mqtt(topic.get(), path));
            });
  }

  private static Optional<PointDriver> driver(YamlFile yaml, Node node, String what) {
    Optional<Fields> f = yaml.mapping(node, what + " driver", "", Set.of("gpio", "mqtt"));
    if (f.isEmpty()) {
      return Optional.empty();
    }
    if (f.get().entries().size() != 1) {
      yaml.error(node, "REG-016", "", what + ": driver names exactly one of gpio or mqtt");
      return Optional.empty();
    }
    if (f.get().has("gpio")) {
      return yaml.mapping(
              f.get().get("gpio").orElseThrow(),
              what + " driver.gpio",
              "",
              Set.of("pin", "active_low"))
          .flatMap(
              g -> {
                Optional<Double> pin = g.get("pin").flatMap(n -> yaml.number(n, "pin", ""));
                if (pin.isEmpty()) {
                  if (!g.has("pin")) {
                    yaml.error(g.node(), "REG-013", "", what + ": driver.gpio needs a pin");
                  }
                  return Optional.empty();
                }
                boolean activeLow =
                    g.get("active_low").flatMap(n -> yaml.bool(n, "active_low", "")).orElse(false);
                return Optional.of(new PointDriver.Gpio(pin.get().intValue(), activeLow));
              });
    }
    Node mqtt = f.get().get("mqtt").orElseThrow();
    if (YamlFile.isNull(mqtt)) {
      return Optional.of(new PointDriver.Mqtt(Optional.empty()));
    }
    return yaml.mapping(mqtt, what + " driver.mqtt", "", Set.of("topic"))
        .map(m -> new PointDriver.Mqtt(m.get("topic").flatMap(n -> yaml.text(n, "topic", ""))));
  }
}
