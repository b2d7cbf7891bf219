package io.sentinel.site.dsl;

import io.sentinel.derived.DerivedKind;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.expr.Compiled;
import io.sentinel.expr.Condition;
import io.sentinel.expr.ExpressionCompiler;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * What the parts of one DSL rule (an instance, for a {@code zone:} rule) share: its id, the inputs
 * it declares as it reads points, the zone it is bound to, and how a DSL value or point path
 * becomes the expression language's.
 */
final class DslScope {
  private static final Pattern QUANTITY =
      Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*([A-Za-z%/0-9]*)");
  private static final Pattern FUNCTION =
      Pattern.compile("(rolling_avg|rate|age)\\(\\s*([^,)\\s]+)\\s*(?:,\\s*([^)\\s]+)\\s*)?\\)");

  /** Units written the way venue and HVAC people write them. */
  private static final Map<String, String> UNIT_ALIASES = Map.of("F", "degF", "C", "degC");

  final YamlFile yaml;
  final Registry registry;
  final ZoneId zone;
  final Map<String, DerivedPoint> generated;

  /** In an instance of a {@code zone: court.*} rule: the zone, and what its * stands for. */
  final String boundZone;

  final String star;
  final String id;

  /** Input name to point, in the order the rule reads them (the expression's slots). */
  final LinkedHashMap<String, PointSpec> inputs = new LinkedHashMap<>();

  DslScope(
      YamlFile yaml,
      Registry registry,
      ZoneId zone,
      Map<String, DerivedPoint> generated,
      String boundZone,
      String star,
      String id) {
    this.yaml = yaml;
    this.registry = registry;
    this.zone = zone;
    this.generated = generated;
    this.boundZone = boundZone;
    this.star = star;
    this.id = id;
  }

  /** A path of the rule, with the zone's * in place of each * segment in a zone instance. */
  String bind(String path) {
    if (star == null) {
      return path;
    }
    String[] parts = path.split("\\.", -1);
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].equals("*")) {
        parts[i] = star;
      }
    }
    return String.join(".", parts);
  }

  boolean onlyKeys(Fields c, Set<String> keys) {
    if (keys.containsAll(c.entries().keySet())) {
      return true;
    }
    yaml.error(
        c.node(),
        DslCodes.DSL_011,
        id,
        "this condition takes only " + keys + "; found " + c.entries().keySet());
    return false;
  }

  /** A point, or a built-in over one: rolling_avg(p, 5s), rate(p, 1m), age(p). */
  Optional<PointSpec> builtin(String path, Node at) {
    Matcher m = FUNCTION.matcher(path.trim());
    if (!m.matches()) {
      return point(path, at);
    }
    Optional<PointSpec> of = point(m.group(2), at);
    if (of.isEmpty()) {
      return Optional.empty();
    }
    String fn = m.group(1);
    Optional<Duration> window = Optional.ofNullable(m.group(3)).flatMap(YamlFile::parseDuration);
    if (!fn.equals("age") && window.isEmpty()) {
      yaml.error(
          at, DslCodes.DSL_019, id, fn + " needs a window: " + fn + "(" + m.group(2) + ", 5s)");
      return Optional.empty();
    }
    if (!fn.equals("age") && !(of.get().type() instanceof PointType.Number)) {
      yaml.error(
          at,
          DslCodes.DSL_019,
          id,
          fn + " needs a number point; " + of.get().id() + " is " + of.get().type().name());
      return Optional.empty();
    }
    String pointId = fn + "(" + of.get().id() + (window.isPresent() ? ", " + m.group(3) : "") + ")";
    DerivedKind kind =
        switch (fn) {
          case "rolling_avg" -> new DerivedKind.RollingAvg(window.get());
          case "rate" -> new DerivedKind.Rate(window.get());
          default -> new DerivedKind.Age(Duration.ofSeconds(1));
        };
    PointType type =
        switch (fn) {
          case "rolling_avg" -> new PointType.Number(of.get().unit());
          case "age" -> new PointType.Number(MeasureUnit.parse("s").orElseThrow());
          default -> new PointType.Number(MeasureUnit.NONE);
        };
    PointSpec spec = generatedSpec(pointId, type);
    generated.putIfAbsent(
        pointId, new DerivedPoint(spec, kind, List.of(of.get().id()), "dsl:" + pointId));
    return Optional.of(spec);
  }

  PointSpec generatedSpec(String pointId, PointType type) {
    return PointSpec.computed(pointId, type, 0, new SourceRef(yaml.file(), 0));
  }

  Optional<PointSpec> point(String written, Node at) {
    String path = bind(written);
    Optional<PointSpec> p =
        registry
            .find(path)
            .or(() -> Optional.ofNullable(generated.get(path)).map(DerivedPoint::spec));
    if (p.isEmpty()) {
      yaml.error(at, DslCodes.DSL_020, id, "point '" + path + "' is not in the registry");
    }
    return p;
  }

  /** The input name of a point in this rule's expression inputs, declaring it on first use. */
  String declare(PointSpec point) {
    String name = point.id().replaceAll("[^A-Za-z0-9_]", "_");
    if (!Character.isLetter(name.charAt(0))) {
      name = "p_" + name;
    }
    inputs.putIfAbsent(name, point);
    return name;
  }

  int slotOf(String name) {
    return new ArrayList<>(inputs.keySet()).indexOf(name);
  }

  /**
   * A value of the DSL as a literal of the expression language for {@code point}: numbers keep the
   * unit they are written in ({@code 68F}), so the one unit check of the language applies.
   */
  Optional<String> literal(Node node, PointSpec point) {
    Optional<String> text = yaml.text(node, "value", id);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String t = text.get().trim();
    PointType type = point.type();
    if (type instanceof PointType.Bool) {
      if (YamlFile.isPlain(node) && (t.equals("true") || t.equals("false"))) {
        return Optional.of(t);
      }
      yaml.error(
          node,
          DslCodes.DSL_021,
          id,
          point.id() + " is bool: expected true or false, found '" + t + "'");
      return Optional.empty();
    }
    if (type instanceof PointType.Number) {
      Matcher m = QUANTITY.matcher(t);
      if (!m.matches()) {
        yaml.error(
            node,
            DslCodes.DSL_022,
            id,
            point.id()
                + " is a number in "
                + point.unit().describe()
                + ": '"
                + t
                + "' is not a quantity");
        return Optional.empty();
      }
      String unit = UNIT_ALIASES.getOrDefault(m.group(2), m.group(2));
      if (!unit.isEmpty() && MeasureUnit.parse(unit).isEmpty()) {
        yaml.error(
            node, DslCodes.DSL_023, id, "'" + m.group(2) + "' in '" + t + "' is not a known unit");
        return Optional.empty();
      }
      return Optional.of(m.group(1) + (unit.isEmpty() ? "" : " " + unit));
    }
    if (type instanceof PointType.Enum e) {
      if (!type.accepts(Value.of(t))) {
        yaml.error(
            node,
            DslCodes.DSL_024,
            id,
            "'"
                + t
                + "' is not one of "
                + point.id()
                + "'s values: "
                + String.join(", ", e.values()));
        return Optional.empty();
      }
      return Optional.of(t);
    }
    return Optional.of("\"" + t.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
  }

  Optional<Condition> compile(String source, int line) {
    Compiled c = ExpressionCompiler.compile(source, new LinkedHashMap<>(inputs));
    c.problems()
        .forEach(
            p ->
                yaml.problems()
                    .expressionError(p.code(), yaml.file(), line, id, asWritten(p.message())));
    return c.condition();
  }

  /** A message of the expression language in the DSL's words: point ids, not input names. */
  String asWritten(String message) {
    String m = message;
    for (Map.Entry<String, PointSpec> e : inputs.entrySet()) {
      m =
          m.replace(e.getKey() + ".value", e.getValue().id())
              .replace(e.getKey() + ".quality", e.getValue().id() + " quality");
    }
    return m;
  }
}
