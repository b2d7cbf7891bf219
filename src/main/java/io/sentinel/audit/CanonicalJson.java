package io.sentinel.audit;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The one text a JSON value hashes as: object keys sorted, no whitespace, numbers as Jackson writes
 * them (an integral value without a fraction). The same record read back from a file or rebuilt
 * from table columns gives the same text, hence the same hash.
 *
 * <p>Two ways to the same text: {@link #tree} and {@link #text} through a sorted tree (what a
 * verifier reads back), and {@link #textOf}, which writes a value of maps, lists, strings, numbers
 * and booleans straight out in one pass (the journal's writer seals every audited record with it;
 * the tree cost it two thirds of the seal, docs/load.md, session 18). Anything else inside the
 * value takes the tree's way, so the text is the tree's whatever the value holds ({@code
 * CanonicalJsonTest}).
 */
public final class CanonicalJson {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Cloned for each hash: {@code getInstance} looks the provider up every time. */
  private static final MessageDigest SHA_256 = newSha256();

  private CanonicalJson() {}

  public static JsonNode tree(Object value) {
    return sorted(JSON.valueToTree(value));
  }

  public static String text(JsonNode node) {
    return sorted(node).toString();
  }

  /** {@code text(tree(value))}, written without building the tree. */
  public static String textOf(Object value) {
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      write(g, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }

  public static String sha256(String text) {
    MessageDigest md;
    try {
      md = (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      md = newSha256();
    }
    return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** As {@link #sorted} would write {@code valueToTree(v)}, value by value. */
  private static void write(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof String s) {
      g.writeString(s);
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short) {
      g.writeNumber(((Number) v).longValue());
    } else if (v instanceof Double d) {
      if (integral(d)) {
        g.writeNumber(d.longValue());
      } else {
        g.writeNumber(d.doubleValue());
      }
    } else if (v instanceof Float f) {
      if (integral(f.doubleValue())) {
        g.writeNumber(f.longValue());
      } else {
        g.writeNumber(f.floatValue());
      }
    } else if (v instanceof Map<?, ?> m) {
      List<String> names = sortedNames(m);
      if (names == null) {
        writeByTree(g, v);
        return;
      }
      g.writeStartObject();
      for (String n : names) {
        g.writeFieldName(n);
        write(g, m.get(n));
      }
      g.writeEndObject();
    } else if (v instanceof List<?> l) {
      g.writeStartArray();
      for (Object e : l) {
        write(g, e);
      }
      g.writeEndArray();
    } else {
      writeByTree(g, v);
    }
  }

  /** What the one-pass writer does not know (a set, an enum, a map keyed by numbers ...). */
  private static void writeByTree(JsonGenerator g, Object v) throws IOException {
    g.writeTree(sorted(JSON.valueToTree(v)));
  }

  /** The map's keys sorted, or null if one is not a string (the tree's way takes that map). */
  private static List<String> sortedNames(Map<?, ?> m) {
    List<String> names = new ArrayList<>(m.size());
    for (Object k : m.keySet()) {
      if (!(k instanceof String name)) {
        return null;
      }
      names.add(name);
    }
    names.sort(null);
    return names;
  }

  /** A floating value the tree writes as an integer (see {@link #sorted}). */
  private static boolean integral(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15;
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
    if (node.isFloatingPointNumber() && integral(node.doubleValue())) {
      return JsonNodeFactory.instance.numberNode((long) node.doubleValue());
    }
    return node;
  }
}
