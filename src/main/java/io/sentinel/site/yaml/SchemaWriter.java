package io.sentinel.site.yaml;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Renders {@link DocumentShapes} as JSON Schema (draft 2020-12), one self-contained file per
 * document: {@code rules/schema/<name>.schema.json}. Deterministic, so a stale checked-in schema is
 * a plain text difference.
 */
public final class SchemaWriter {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  public static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";

  private SchemaWriter() {}

  /** Every document's schema, by file name, as the text checked in. */
  public static Map<String, String> all() {
    Map<String, String> out = new LinkedHashMap<>();
    DocumentShapes.documents()
        .forEach((name, shape) -> out.put(name + ".schema.json", text(name, shape)));
    return out;
  }

  static String text(String name, Shape document) {
    ObjectNode root = F.objectNode();
    root.put("$schema", DIALECT);
    root.put("title", "Sentinel " + name);
    ObjectNode body = render(document);
    root.setAll(body);
    Map<String, Shape> defs = DocumentShapes.definitions();
    Set<String> used = reachable(document, defs);
    if (!used.isEmpty()) {
      ObjectNode d = root.putObject("$defs");
      for (String n : defs.keySet()) {
        if (used.contains(n)) {
          d.set(n, render(defs.get(n)));
        }
      }
    }
    try {
      return JSON.writeValueAsString(root).replace("\r\n", "\n") + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The definitions a document refers to, directly or through other definitions. */
  private static Set<String> reachable(Shape document, Map<String, Shape> defs) {
    Set<String> seen = new LinkedHashSet<>();
    Deque<Shape> todo = new ArrayDeque<>();
    todo.push(document);
    while (!todo.isEmpty()) {
      Shape s = todo.pop();
      if (s instanceof Shape.Ref r) {
        if (seen.add(r.name())) {
          todo.push(defs.get(r.name()));
        }
      } else if (s instanceof Shape.Keys k) {
        k.properties().values().forEach(todo::push);
      } else if (s instanceof Shape.NamedMap m) {
        todo.push(m.values());
      } else if (s instanceof Shape.ListOf l) {
        todo.push(l.items());
      } else if (s instanceof Shape.Either e) {
        e.options().forEach(todo::push);
      }
    }
    return seen;
  }

  private static ObjectNode render(Shape shape) {
    ObjectNode o = F.objectNode();
    if (!shape.description().isEmpty()) {
      o.put("description", shape.description());
    }
    if (shape instanceof Shape.Keys k) {
      o.put("type", "object");
      ObjectNode props = o.putObject("properties");
      k.properties().forEach((name, s) -> props.set(name, render(s)));
      if (!k.required().isEmpty()) {
        ArrayNode r = o.putArray("required");
        k.required().forEach(r::add);
      }
      if (k.exactlyOne()) {
        o.put("minProperties", 1);
        o.put("maxProperties", 1);
      }
      o.put("additionalProperties", false);
    } else if (shape instanceof Shape.NamedMap m) {
      o.put("type", "object");
      m.pattern().ifPresent(p -> o.putObject("propertyNames").put("pattern", anchored(p)));
      o.set("additionalProperties", render(m.values()));
    } else if (shape instanceof Shape.Text t) {
      o.put("type", "string");
      if (t.choices().size() == 1) {
        o.put("const", t.choices().get(0));
      } else if (!t.choices().isEmpty()) {
        ArrayNode e = o.putArray("enum");
        t.choices().forEach(e::add);
      }
      t.pattern().ifPresent(p -> o.put("pattern", anchored(p)));
    } else if (shape instanceof Shape.Num n) {
      o.put("type", "number");
      n.minimum().ifPresent(m -> o.put("minimum", m));
    } else if (shape instanceof Shape.Int i) {
      o.put("type", "integer");
      i.minimum().ifPresent(m -> o.put("minimum", m));
      i.maximum().ifPresent(m -> o.put("maximum", m));
    } else if (shape instanceof Shape.Flag) {
      o.put("type", "boolean");
    } else if (shape instanceof Shape.PointValue) {
      o.putArray("type").add("boolean").add("number").add("string");
    } else if (shape instanceof Shape.Nothing) {
      o.put("type", "null");
    } else if (shape instanceof Shape.ListOf l) {
      o.put("type", "array");
      o.set("items", render(l.items()));
      if (l.minItems() > 0) {
        o.put("minItems", l.minItems());
      }
      l.maxItems().ifPresent(m -> o.put("maxItems", m));
    } else if (shape instanceof Shape.Either e) {
      ArrayNode any = o.putArray("anyOf");
      e.options().forEach(s -> any.add(render(s)));
    } else if (shape instanceof Shape.Ref r) {
      o.put("$ref", "#/$defs/" + r.name());
    }
    // Shape.Anything: no constraint beyond its description.
    return o;
  }

  private static String anchored(String pattern) {
    return "^" + pattern + "$";
  }
}
