package io.sentinel.site.revision;

import io.sentinel.point.JsonText;
import io.sentinel.site.yaml.YamlFile;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The text a revision's signature covers: the document without its top-level {@code signature}, as
 * JSON in the JSON Canonicalization Scheme (RFC 8785). Plain YAML scalars are typed by YAML 1.2's
 * JSON schema ({@code null}, {@code ~} and empty are null; {@code true}, {@code false}; JSON
 * numbers); every other scalar is a string. So a JSON document and the YAML that means the same
 * have one canonical body. docs/revisions.md gives the rules for a third party that signs.
 */
public final class CanonicalBody {
  private static final Pattern NUMBER =
      Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

  private CanonicalBody() {}

  /**
   * The canonical text of a document's root, without the top-level {@code skipKeys}; empty when a
   * key is not a plain scalar or repeats (the loaders report those).
   */
  public static Optional<String> of(Node root, java.util.Set<String> skipKeys) {
    StringBuilder b = new StringBuilder();
    return write(root, skipKeys, b) ? Optional.of(b.toString()) : Optional.empty();
  }

  private static boolean write(Node node, java.util.Set<String> skipKeys, StringBuilder b) {
    if (node instanceof ScalarNode s) {
      scalar(s, b);
      return true;
    }
    if (node instanceof SequenceNode s) {
      b.append('[');
      boolean first = true;
      for (Node n : s.getValue()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        if (!write(n, java.util.Set.of(), b)) {
          return false;
        }
      }
      b.append(']');
      return true;
    }
    MappingNode m = (MappingNode) node;
    List<String> keys = new ArrayList<>();
    java.util.Map<String, Node> values = new java.util.HashMap<>();
    for (NodeTuple t : m.getValue()) {
      if (!(t.getKeyNode() instanceof ScalarNode k) || values.containsKey(k.getValue())) {
        return false;
      }
      if (skipKeys.contains(k.getValue())) {
        continue;
      }
      keys.add(k.getValue());
      values.put(k.getValue(), t.getValueNode());
    }
    // RFC 8785 sorts keys by their UTF-16 code units, which is String's natural order.
    keys.sort(null);
    b.append('{');
    for (int i = 0; i < keys.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      string(keys.get(i), b);
      b.append(':');
      if (!write(values.get(keys.get(i)), java.util.Set.of(), b)) {
        return false;
      }
    }
    b.append('}');
    return true;
  }

  private static void scalar(ScalarNode s, StringBuilder b) {
    String v = s.getValue();
    if (!YamlFile.isPlain(s)) {
      string(v, b);
    } else if (YamlFile.isNull(s) || v.equals("Null") || v.equals("NULL")) {
      b.append("null");
    } else if (v.equals("true") || v.equals("false")) {
      b.append(v);
    } else if (NUMBER.matcher(v).matches()) {
      b.append(number(v));
    } else {
      string(v, b);
    }
  }

  /** SHA-256 (hex) of a canonical body: a revision's content hash, signature aside. */
  public static String sha256(String body) {
    return sha256(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** SHA-256 (hex) of bytes: of a document as delivered, signatures and all. */
  public static String sha256(byte[] bytes) {
    try {
      return java.util.HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /**
   * ECMAScript's Number.prototype.toString of the double the literal reads as (RFC 8785 3.2.2.3).
   */
  static String number(String literal) {
    double d = Double.parseDouble(literal);
    if (d == 0) {
      return "0";
    }
    if (!Double.isFinite(d)) {
      return '"' + literal + '"';
    }
    BigDecimal exact = shortest(d);
    double abs = Math.abs(d);
    if (abs >= 1e-6 && abs < 1e21) {
      return exact.toPlainString();
    }
    String digits = exact.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - exact.scale();
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return (d < 0 ? "-" : "") + mantissa + "e" + (exponent >= 0 ? "+" : "-") + Math.abs(exponent);
  }

  /**
   * The decimal with the fewest digits that reads back as {@code d}, the closest such one (Java
   * 17's Double.toString is not always the shortest).
   */
  private static BigDecimal shortest(double d) {
    BigDecimal exact = new BigDecimal(d);
    for (int digits = 1; digits < 17; digits++) {
      BigDecimal r =
          exact.round(new java.math.MathContext(digits, java.math.RoundingMode.HALF_EVEN));
      if (r.doubleValue() == d) {
        return r.stripTrailingZeros();
      }
    }
    return exact
        .round(new java.math.MathContext(17, java.math.RoundingMode.HALF_EVEN))
        .stripTrailingZeros();
  }

  /** A JSON string: only {@code "}, {@code \} and control characters are escaped. */
  private static void string(String s, StringBuilder b) {
    b.append('"').append(JsonText.escaped(s)).append('"');
  }
}
