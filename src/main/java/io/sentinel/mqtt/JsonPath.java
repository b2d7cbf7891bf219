package io.sentinel.mqtt;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The small JSONPath subset that picks a value out of a third-party payload: {@code $} (the whole
 * document), {@code $.a.b} (object members) and {@code $.a[0]} (array elements), combined freely.
 * Filters, wildcards and slices are not supported: a registry entry names one value.
 */
public final class JsonPath {
  private final String text;
  private final List<Object> steps; // String: member name, Integer: array index

  private JsonPath(String text, List<Object> steps) {
    this.text = text;
    this.steps = List.copyOf(steps);
  }

  /** Parses a path, or says what is wrong with it. */
  public static Parsed parse(String text) {
    if (!text.startsWith("$")) {
      return Parsed.error("a json_path starts with $ (e.g. $.temperature)");
    }
    List<Object> steps = new ArrayList<>();
    int i = 1;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '.') {
        int end = i + 1;
        while (end < text.length() && text.charAt(end) != '.' && text.charAt(end) != '[') {
          end++;
        }
        if (end == i + 1) {
          return Parsed.error("empty member name at position " + (i + 1));
        }
        steps.add(text.substring(i + 1, end));
        i = end;
      } else if (c == '[') {
        int close = text.indexOf(']', i);
        String index = close < 0 ? "" : text.substring(i + 1, close);
        if (!index.matches("\\d{1,9}")) {
          return Parsed.error(
              "only array indexes like [0] are supported, found '" + text.substring(i) + "'");
        }
        steps.add(Integer.parseInt(index));
        i = close + 1;
      } else {
        return Parsed.error("unexpected '" + c + "' at position " + (i + 1));
      }
    }
    return new Parsed(Optional.of(new JsonPath(text, steps)), "");
  }

  /** The value at this path in a decoded document, if the document has one there. */
  public Optional<Object> select(Object document) {
    Object at = document;
    for (Object step : steps) {
      if (step instanceof String name && at instanceof JsonObject o && o.containsKey(name)) {
        at = o.getValue(name);
      } else if (step instanceof Integer index && at instanceof JsonArray a && index < a.size()) {
        at = a.getValue(index);
      } else {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(at);
  }

  /** Whether the path is {@code $}: the whole document. */
  public boolean whole() {
    return steps.isEmpty();
  }

  @Override
  public String toString() {
    return text;
  }

  /** A parsed path, or the reason it could not be parsed. */
  public record Parsed(Optional<JsonPath> path, String problem) {
    static Parsed error(String problem) {
      return new Parsed(Optional.empty(), problem);
    }
  }
}
