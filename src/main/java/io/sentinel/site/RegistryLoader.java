package io.sentinel.site;

import io.sentinel.point.Direction;
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
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;

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
    List<GpioPins.PinUse> pins = new ArrayList<>();
    yaml.mapping(pointsNode, "points", "", Set.of())
        .ifPresent(
            points ->
                points
                    .entries()
                    .forEach(
                        (id, node) ->
                            point(yaml, id, points.keyNode(id), node, pins).ifPresent(specs::add)));
    GpioPins.checkPins(yaml, pins);
    return Registry.of(specs);
  }

  private static Optional<PointSpec> point(
      YamlFile yaml, String id, Node keyNode, Node node, List<GpioPins.PinUse> pins) {
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
    Optional<PointType> type = PointFields.type(yaml, f, what);
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
    Optional<PointSpec.Range> range = f.get("range").flatMap(n -> PointFields.range(yaml, n, what));
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
    Optional<PointSource> source = f.get("source").flatMap(n -> PointFields.source(yaml, n, what));
    Optional<PointDriver> driver = f.get("driver").flatMap(n -> PointFields.driver(yaml, n, what));
    if (source.orElse(null) instanceof PointSource.Gpio g) {
      pins.add(new GpioPins.PinUse(g.pin(), false, id, GpioPins.pinNode(f, "source")));
      if (direction == Direction.OUT) {
        yaml.error(
            f.keyNode("source"),
            SiteCodes.REG_023,
            "",
            what + ": an output (direction out) is not read from a gpio source; inout is");
      }
    }
    if (driver.orElse(null) instanceof PointDriver.Gpio g) {
      pins.add(new GpioPins.PinUse(g.pin(), true, id, GpioPins.pinNode(f, "driver")));
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
            new SourceRef(yaml.file(), YamlFile.line(keyNode)),
            Optional.empty());
    Optional<Value> release =
        f.get("release_value").flatMap(n -> ValueReader.read(yaml, n, base, "release_value", ""));
    PointSpec device = DeviceFields.apply(yaml, f, base);
    if (pulseMax.isPresent() && release.filter(Value.TRUE::equals).isPresent()) {
      yaml.error(
          f.get("release_value").orElseThrow(),
          SiteCodes.REG_022,
          "",
          what + ": release_value true would hold a point with pulse_max energised");
    }
    return Optional.of(release.map(device::withReleaseValue).orElse(device));
  }
}
