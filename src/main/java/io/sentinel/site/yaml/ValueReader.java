package io.sentinel.site.yaml;

import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Value;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads a YAML value as a value of a given point. What a valid value of a type is, is {@link
 * PointType#accepts} (shared with ingest and the engine); this adds the YAML syntax and the range.
 */
public final class ValueReader {
  private ValueReader() {}

  /**
   * The value for {@code point}, checked against its type, enum values and range; empty with an
   * error naming the field and the point when it does not fit.
   */
  public static Optional<Value> read(
      YamlFile yaml, Node node, PointSpec point, String field, String rule) {
    Optional<String> text = yaml.text(node, field, rule);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String t = text.get();
    String where = field + " for point " + point.id();
    PointType type = point.type();
    if (type instanceof PointType.Bool) {
      if (YamlFile.isPlain(node) && (t.equals("true") || t.equals("false"))) {
        return Optional.of(Value.of(Boolean.parseBoolean(t)));
      }
      yaml.error(
          node,
          YamlCodes.VAL_001,
          rule,
          where + ": expected true or false (bool), found '" + t + "'");
      return Optional.empty();
    }
    if (type instanceof PointType.Number n) {
      Optional<Double> d = parseNumber(node, t);
      if (d.isEmpty()) {
        yaml.error(
            node,
            YamlCodes.VAL_002,
            rule,
            where + ": expected a number in " + n.unit().describe() + ", found '" + t + "'");
        return Optional.empty();
      }
      Value v = Value.of(d.get());
      if (!type.accepts(v)) {
        yaml.error(node, YamlCodes.VAL_002, rule, where + ": '" + t + "' is not a finite number");
        return Optional.empty();
      }
      return inRange(yaml, node, point, v, t, field, rule);
    }
    if (type instanceof PointType.Enum e) {
      if (type.accepts(Value.of(t))) {
        return Optional.of(Value.of(t));
      }
      yaml.error(
          node,
          YamlCodes.VAL_004,
          rule,
          where + ": '" + t + "' is not one of " + String.join(", ", e.values()));
      return Optional.empty();
    }
    return Optional.of(Value.of(t));
  }

  /** {@code v} (written {@code t}) if it is inside the point's range; VAL-003 when it is not. */
  public static Optional<Value> inRange(
      YamlFile yaml, Node node, PointSpec point, Value v, String t, String field, String rule) {
    if (point.inRange(v)) {
      return Optional.of(v);
    }
    PointSpec.Range r = point.range().orElseThrow();
    yaml.error(
        node,
        YamlCodes.VAL_003,
        rule,
        field
            + " for point "
            + point.id()
            + ": "
            + t
            + " is outside the range ["
            + fmt(r.min())
            + ", "
            + fmt(r.max())
            + "]");
    return Optional.empty();
  }

  private static Optional<Double> parseNumber(Node node, String t) {
    if (!YamlFile.isPlain(node)) {
      return Optional.empty();
    }
    try {
      double d = Double.parseDouble(t);
      return !t.endsWith("d") && !t.endsWith("f") && !t.endsWith("D") && !t.endsWith("F")
          ? Optional.of(d)
          : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  static String fmt(double d) {
    return Value.of(d).toString();
  }
}
