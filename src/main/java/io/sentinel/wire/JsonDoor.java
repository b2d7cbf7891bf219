package io.sentinel.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.sentinel.door.Door;
import io.sentinel.door.Flaw;
import io.sentinel.door.Refusal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;

/**
 * JSON read at the door, once: the bytes must be strict UTF-8 and at most {@code maxBytes} long
 * (checked before parsing), then Jackson reads them with its own limits (nesting depth, string and
 * number length), a key given twice is refused, and every string (key or value) and number is
 * checked as it is read ({@link Door#line}, {@link Door#finite}). The result is what Vert.x's
 * {@code Json.decodeValue} gives (a {@link JsonObject}, {@link JsonArray}, String, Number, Boolean
 * or null), so the readers downstream are unchanged; anything else is a {@link Refusal} naming the
 * flaw and where (a JSON path such as {@code $.value}).
 */
public final class JsonDoor {
  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  // One over ours, so that our own check (which names the path) speaks first.
                  .maxNestingDepth(Door.MAX_DEPTH + 1)
                  .maxStringLength(Door.MAX_STRING)
                  .maxNumberLength(Door.MAX_NUMBER_DIGITS)
                  .build())
          .build();

  private JsonDoor() {}

  /**
   * The one JSON value in {@code bytes}.
   *
   * @param where what the input is, for messages ({@code body}, a topic)
   * @throws Refusal naming the flaw: oversize, bad encoding, unreadable, duplicate key, too deep,
   *     control character, not finite
   */
  public static Object read(byte[] bytes, int maxBytes, String where) {
    if (bytes.length > maxBytes) {
      throw new Refusal(
          Flaw.OVERSIZE, where, bytes.length + " bytes, over the limit of " + maxBytes);
    }
    return read(Door.utf8(bytes, where));
  }

  /** {@link #read(byte[], int, String)} of text already decoded (and its size already bounded). */
  public static Object read(String text) {
    try (JsonParser p = FACTORY.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new Refusal(Flaw.UNREADABLE_JSON, "", "empty: no JSON value");
      }
      Object value = value(p, first, "$", null, -1, 0);
      if (p.nextToken() != null) {
        throw new Refusal(
            Flaw.UNREADABLE_JSON,
            "",
            "more than one JSON value (trailing content at character "
                + (p.currentTokenLocation().getCharOffset() + 1)
                + ")");
      }
      return value;
    } catch (StreamConstraintsException e) {
      throw new Refusal(Flaw.OVERSIZE, "", Door.printable(firstLine(e), 160));
    } catch (JsonProcessingException e) {
      long at = e.getLocation() == null ? -1 : e.getLocation().getCharOffset();
      throw new Refusal(
          Flaw.UNREADABLE_JSON,
          "",
          "not JSON: "
              + Door.printable(firstLine(e), 120)
              + (at >= 0 ? " at character " + (at + 1) : ""));
    } catch (IOException e) {
      throw new Refusal(
          Flaw.UNREADABLE_JSON, "", "not JSON: " + Door.printable(e.getMessage(), 120));
    }
  }

  /**
   * The value at {@code parent} then {@code key} (or {@code [index]}, or nothing when both are
   * absent). A sample's payload is read for every message, so its path is only put together when it
   * is needed: for a refusal, or to go into an object or array.
   */
  private static Object value(
      JsonParser p, JsonToken t, String parent, String key, int index, int depth)
      throws IOException {
    switch (t) {
      case START_OBJECT:
        {
          String path = at(parent, key, index);
          deep(path, depth);
          JsonObject o = new JsonObject();
          for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
            String name = p.currentName();
            if (!Door.isLine(name)) {
              Door.line(name, path + " (a key)");
            }
            // Checked here rather than by Jackson's duplicate detection, which costs a detector
            // per object read: the map already answers the question.
            if (o.containsKey(name)) {
              throw new Refusal(
                  Flaw.DUPLICATE_KEY,
                  "",
                  "Duplicate field '" + Door.printable(name, 100) + "': a key names one value");
            }
            o.put(name, value(p, p.nextToken(), path, name, -1, depth + 1));
          }
          return o;
        }
      case START_ARRAY:
        {
          String path = at(parent, key, index);
          deep(path, depth);
          JsonArray a = new JsonArray();
          for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
            a.add(value(p, e, path, null, a.size(), depth + 1));
          }
          return a;
        }
      case VALUE_STRING:
        String text = p.getText();
        return Door.isLine(text) ? text : Door.line(text, at(parent, key, index));
      case VALUE_NUMBER_INT:
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
          return finite(p.getBigIntegerValue().doubleValue(), p, parent, key, index);
        }
        return p.getNumberValue();
      case VALUE_NUMBER_FLOAT:
        return finite(p.getDoubleValue(), p, parent, key, index);
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new Refusal(Flaw.UNREADABLE_JSON, at(parent, key, index), "unexpected " + t);
    }
  }

  /** A JSON path such as {@code $.values[2]}. */
  private static String at(String parent, String key, int index) {
    return key != null ? parent + "." + key : index >= 0 ? parent + "[" + index + "]" : parent;
  }

  private static void deep(String path, int depth) {
    if (depth >= Door.MAX_DEPTH) {
      throw new Refusal(Flaw.TOO_DEEP, path, "nested deeper than " + Door.MAX_DEPTH + " levels");
    }
  }

  /** The number's digits go into the refusal only when there is one: most numbers are finite. */
  private static double finite(double d, JsonParser p, String parent, String key, int index)
      throws IOException {
    return Double.isFinite(d)
        ? d
        : Door.finite(d, at(parent, key, index), " (" + Door.printable(p.getText(), 24) + ")");
  }

  private static String firstLine(JsonProcessingException e) {
    String m = e.getOriginalMessage() == null ? "not JSON" : e.getOriginalMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
