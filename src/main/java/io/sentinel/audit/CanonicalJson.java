package io.sentinel.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The one text a JSON value hashes as: object keys sorted, no whitespace, numbers as Jackson writes
 * them (an integral value without a fraction). The same record read back from a file or rebuilt
 * from table columns gives the same text, hence the same hash.
 */
public final class CanonicalJson {
  static final ObjectMapper JSON = new ObjectMapper();

  private CanonicalJson() {}

  public static JsonNode tree(Object value) {
    return sorted(JSON.valueToTree(value));
  }

  public static String text(JsonNode node) {
    return sorted(node).toString();
  }

  /** {@code text(tree(value))}, without sorting the sorted tree a second time. */
  public static String textOf(Object value) {
    return tree(value).toString();
  }

  public static String sha256(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      for (String n : names) {
        out.set(n, sorted(node.get(n)));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(e -> out.add(sorted(e)));
      return out;
    }
    if (node.isFloatingPointNumber() && node.doubleValue() == Math.rint(node.doubleValue())) {
      double d = node.doubleValue();
      if (Math.abs(d) < 1e15) {
        return JsonNodeFactory.instance.numberNode((long) d);
      }
    }
    return node;
  }
}
