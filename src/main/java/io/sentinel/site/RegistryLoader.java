package io.sentinel.site;

import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.site.yaml.PointShapes;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.ShapeParts;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/** Reads {@code points.yaml}: the point registry of a site. */
public final class RegistryLoader {
  private static final Pattern POINT_ID = Pattern.compile(ShapeParts.ID_PATTERN);
  // The keys each mapping takes: declared once, in DocumentShapes (also the JSON Schema's source).
  private static final Set<String> POINT_KEYS = PointShapes.POINT.keys();

  private RegistryLoader() {}

  public static Registry load(String file, String text, Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    return yaml.parse(text)
        .flatMap(root -> yaml.mapping(root, "points.yaml", "", PointShapes.REGISTRY_FILE.keys()))
        .flatMap(top -> top.get("points"))
        .map(points -> fromNode(yaml, points))
        .orElse(Registry.of(List.of()));
  }

  /** The registry of an already parsed {@code points:} mapping (a revision document's). */
  public static Registry fromNode(YamlFile yaml, Node pointsNode) {
    List<PointSpec> specs = new ArrayList<>();
    List<PinUse> pins = new ArrayList<>();
    yaml.mapping(pointsNode, "points", "", Set.of())
        .ifPresent(
            points ->
                points
                    .entries()
                    .forEach(
                        (id, node) ->
                            point(yaml, id, points.keyNode(id), node, pins).ifPresent(specs::add)));
    checkPins(yaml, pins);
    return Registry.of(specs);
  }

  /** The BCM numbers of the Raspberry Pi's 40-pin header (GPIO 0 to 27). */
  static final int PIN_MIN = 0;

  static final int PIN_MAX = 27;

  /** A GPIO pin named by a point: where, and whether it reads or drives it. */
  private record PinUse(int pin, boolean output, String pointId, Node at) {}

  /** A pin has one owner: one input, or one output (a pin both read and driven is a short). */
  private static void checkPins(YamlFile yaml, List<PinUse> pins) {
    Map<Integer, PinUse> first = new HashMap<>();
    for (PinUse use : pins) {
      PinUse earlier = first.putIfAbsent(use.pin(), use);
      if (earlier == null) {
        continue;
      }
      String where = yaml.file() + ":" + YamlFile.line(earlier.at());
      if (earlier.output() != use.output()) {
        yaml.error(
            use.at(),
            SiteCodes.REG_019,
            "",
            "point "
                + use.pointId()
                + ": gpio pin "
                + use.pin()
                + " is both an input and an output ("
                + role(use)
                + " here, "
                + role(earlier)
                + " of point "
                + earlier.pointId()
                + " at "
                + where
                + ")");
      } else {
        yaml.error(
            use.at(),
            SiteCodes.REG_018,
            "",
            "point "
                + use.pointId()
                + ": gpio pin "
                + use.pin()
                + " is already the "
                + role(earlier)
                + " of point "
                + earlier.pointId()
                + " at "
                + where);
      }
    }
  }

  private static String role(PinUse use) {
    return use.output() ? "output" : "input";
  }

  /** A BCM pin number of the 40-pin header, or empty with the problem reported. */
  private static Optional<Integer> pin(YamlFile yaml, Fields g, String what, String key) {
    Optional<Double> pin = g.get("pin").flatMap(n -> yaml.number(n, "pin", ""));
    if (pin.isEmpty()) {
      if (!g.has("pin")) {
        yaml.error(g.node(), SiteCodes.REG_013, "", what + ": " + key + " needs a pin");
      }
      return Optional.empty();
    }
    double p = pin.get();
    if (p != Math.rint(p) || p < PIN_MIN || p > PIN_MAX) {
      yaml.error(
          g.get("pin").orElseThrow(),
          SiteCodes.REG_017,
          "",
          what
              + ": "
              + key
              + " pin "
              + YamlFile.scalarOf(g.node(), "pin")
              + " is not a Raspberry Pi GPIO (BCM numbers "
              + PIN_MIN
              + " to "
              + PIN_MAX
              + ")");
      return Optional.empty();
    }
    return Optional.of((int) p);
  }

  private static Optional<PointSpec> point(
      YamlFile yaml, String id, Node keyNode, Node node, List<PinUse> pins) {
    String what = "point " + id;
    if (!POINT_ID.matcher(id).matches()) {
      yaml.error(
          keyNode,
          SiteCodes.REG_001,
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
                                  SiteCodes.REG_003,
                                  "",
                                  what + ": direction '" + d + "' is not in, out or inout");
                              return Direction.IN;
                            }))
            .orElseGet(
                () -> {
                  yaml.error(
                      f.node(),
                      SiteCodes.REG_004,
                      "",
                      what + ": direction (in, out, inout) is missing");
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
          SiteCodes.REG_005,
          "",
          what + ": unavailable_after must be longer than stale_after");
    }
    if (deadband < 0) {
      yaml.error(
          f.get("deadband").orElseThrow(),
          SiteCodes.REG_006,
          "",
          what + ": deadband must not be negative");
    }
    Optional<PointSource> source = f.get("source").flatMap(n -> source(yaml, n, what));
    Optional<PointDriver> driver = f.get("driver").flatMap(n -> driver(yaml, n, what));
    if (source.orElse(null) instanceof PointSource.Gpio g) {
      pins.add(new PinUse(g.pin(), false, id, pinNode(f, "source")));
      if (direction == Direction.OUT) {
        yaml.error(
            f.keyNode("source"),
            SiteCodes.REG_023,
            "",
            what + ": an output (direction out) is not read from a gpio source; inout is");
      }
    }
    if (driver.orElse(null) instanceof PointDriver.Gpio g) {
      pins.add(new PinUse(g.pin(), true, id, pinNode(f, "driver")));
    }
    if ((source.orElse(null) instanceof PointSource.Gpio
            || driver.orElse(null) instanceof PointDriver.Gpio)
        && type.isPresent()
        && !(type.get() instanceof PointType.Bool)) {
      yaml.error(
          f.get("type").orElseThrow(),
          SiteCodes.REG_021,
          "",
          what + ": a gpio pin is a bool point, not " + type.get().name());
    }
    if (driver.isPresent() && !direction.claimable()) {
      yaml.error(
          f.keyNode("driver"),
          SiteCodes.REG_007,
          "",
          what + ": an input point (direction in) has no driver");
    }
    Optional<Duration> minInterval =
        f.get("command_rate")
            .flatMap(
                n -> yaml.mapping(n, what + " command_rate", "", PointShapes.COMMAND_RATE.keys()))
            .flatMap(c -> c.get("min_interval"))
            .flatMap(n -> yaml.duration(n, "command_rate.min_interval", ""));
    Optional<Duration> pulseMax =
        f.get("pulse_max").flatMap(n -> yaml.duration(n, "pulse_max", ""));
    if (f.has("pulse_max")
        && (!direction.claimable()
            || type.filter(t -> !(t instanceof PointType.Bool)).isPresent())) {
      yaml.error(
          f.keyNode("pulse_max"),
          SiteCodes.REG_020,
          "",
          what + ": pulse_max belongs on a bool output (direction out or inout)");
    }
    if (pulseMax.filter(d -> d.isZero() || d.isNegative()).isPresent()) {
      yaml.error(
          f.get("pulse_max").orElseThrow(),
          SiteCodes.REG_020,
          "",
          what + ": pulse_max must be longer than zero");
    }
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
    if (pulseMax.isPresent() && release.filter(Value.TRUE::equals).isPresent()) {
      yaml.error(
          f.get("release_value").orElseThrow(),
          SiteCodes.REG_022,
          "",
          what + ": release_value true would hold a point with pulse_max energised");
    }
    return Optional.of(release.map(base::withReleaseValue).orElse(base));
  }

  /** The {@code pin} node of a point's {@code source.gpio} or {@code driver.gpio}, for messages. */
  private static Node pinNode(Fields f, String key) {
    Node n = f.get(key).orElseThrow();
    if (n instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getValueNode() instanceof MappingNode gpio) {
          for (NodeTuple u : gpio.getValue()) {
            if (u.getKeyNode() instanceof ScalarNode k && k.getValue().equals("pin")) {
              return u.getValueNode();
            }
          }
        }
      }
    }
    return n;
  }

  private static Optional<PointType> type(YamlFile yaml, Fields f, String what) {
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

  private static Optional<PointSpec.Range> range(YamlFile yaml, Node node, String what) {
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

  private static Optional<PointSource> source(YamlFile yaml, Node node, String what) {
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
                Optional<Integer> pin = pin(yaml, g, what, "source.gpio");
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
              return Optional.of(new PointSource.Mqtt(topic.get(), path));
            });
  }

  private static Optional<PointDriver> driver(YamlFile yaml, Node node, String what) {
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
                Optional<Integer> pin = pin(yaml, g, what, "driver.gpio");
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
