package io.sentinel.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The NDJSON form of a log window, one JSON object per line, told apart by {@code type}:
 *
 * <pre>
 * {"type":"window","site":"main","from":"…","to":"…"}
 * {"type":"observation","seq":1,"point":"…","value":42.5,"quality":"live","source":"…","observed_at":null,"received_at":"…"}
 * {"type":"command","at":"…","point":"…","kind":"assert","value":true,"rule":"…","band":"automation","detail":""}
 * </pre>
 *
 * Values are native JSON (a boolean, a number, a string, or null for no value), as the devices
 * reported them in the point's declared unit.
 */
public final class PassLogJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private PassLogJson() {}

  public static String windowLine(String site, Instant from, Instant to) {
    ObjectNode o = NODES.objectNode();
    o.put("type", "window");
    o.put("site", site);
    o.put("from", from.toString());
    o.put("to", to.toString());
    return o.toString();
  }

  public static String line(LoggedObservation lo) {
    Observation ob = lo.observation();
    ObjectNode o = NODES.objectNode();
    o.put("type", "observation");
    o.put("seq", lo.seq());
    o.put("point", ob.pointId());
    o.set("value", valueNode(ob.value()));
    o.put("quality", ob.quality().wireName());
    o.put("source", ob.source());
    o.put("observed_at", ob.observedAt().map(Instant::toString).orElse(null));
    o.put("received_at", ob.receivedAt().toString());
    return o.toString();
  }

  public static String line(CommandIntent c) {
    ObjectNode o = NODES.objectNode();
    o.put("type", "command");
    o.put("at", c.at().toString());
    o.put("point", c.pointId());
    o.put("kind", c.kind().wireName());
    o.set("value", valueNode(c.value()));
    o.put("rule", c.ruleId().orElse(null));
    o.put("band", c.band().map(Band::wireName).orElse(null));
    o.put("detail", c.detail());
    return o.toString();
  }

  /** A point value as native JSON. */
  public static JsonNode valueNode(Value v) {
    Object plain = v.toPlain();
    if (plain == null) {
      return NODES.nullNode();
    }
    if (plain instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (plain instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (plain instanceof Double d) {
      return NODES.numberNode(d);
    }
    return NODES.textNode(plain.toString());
  }

  /**
   * {@link #valueNode}'s text, without a node and a generator for a number, a flag or absent: the
   * journal writes one per observation, decision and point value.
   */
  public static String valueJson(Value v) {
    Object plain = v.toPlain();
    if (plain == null || plain instanceof Boolean || plain instanceof Long) {
      return String.valueOf(plain);
    }
    if (plain instanceof Double d && Double.isFinite(d)) {
      return d.toString();
    }
    return valueNode(v).toString();
  }

  /** A native JSON value as a point value; empty when it is not a scalar. */
  public static Optional<Value> value(JsonNode node) {
    if (node == null || node.isNull()) {
      return Optional.of(Value.ABSENT);
    }
    if (node.isBoolean()) {
      return Optional.of(Value.of(node.booleanValue()));
    }
    if (node.isNumber()) {
      return Optional.of(Value.of(node.doubleValue()));
    }
    if (node.isTextual()) {
      return Optional.of(Value.of(node.textValue()));
    }
    return Optional.empty();
  }

  public static void write(Writer out, LogWindow window) throws IOException {
    if (window.from().isPresent() && window.to().isPresent()) {
      out.write(
          windowLine(window.site().orElse(""), window.from().get(), window.to().get()) + "\n");
    }
    for (LoggedObservation o : window.observations()) {
      out.write(line(o) + "\n");
    }
    for (CommandIntent c : window.commands()) {
      out.write(line(c) + "\n");
    }
  }

  public static LogWindow read(Path file) {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(file.toString(), in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  public static LogWindow read(String name, BufferedReader in) throws IOException {
    List<LoggedObservation> observations = new ArrayList<>();
    List<CommandIntent> commands = new ArrayList<>();
    Optional<String> site = Optional.empty();
    Optional<Instant> from = Optional.empty();
    Optional<Instant> to = Optional.empty();
    int lineNo = 0;
    for (String text; (text = in.readLine()) != null; ) {
      lineNo++;
      if (text.isBlank()) {
        continue;
      }
      Line line = new Line(name, lineNo, parse(name, lineNo, text));
      switch (line.text("type")) {
        case "window" -> {
          site = Optional.of(line.text("site"));
          from = Optional.of(line.instant("from"));
          to = Optional.of(line.instant("to"));
        }
        case "observation" -> observations.add(observation(line));
        case "command" -> commands.add(command(line));
        default -> throw line.error("type", "is not window, observation or command");
      }
    }
    return new LogWindow(site, from, to, observations, commands);
  }

  private static JsonNode parse(String name, int lineNo, String text) {
    try {
      JsonNode node = JSON.readTree(text);
      if (!node.isObject()) {
        throw new PassLogFormatException(name + ":" + lineNo + ": not a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new PassLogFormatException(
          name + ":" + lineNo + ": not JSON: " + e.getOriginalMessage());
    }
  }

  private static LoggedObservation observation(Line l) {
    Quality quality =
        Quality.parse(l.text("quality"))
            .orElseThrow(() -> l.error("quality", "is not a quality: " + l.text("quality")));
    return new LoggedObservation(
        l.number("seq"),
        new Observation(
            l.text("point"),
            l.value("value"),
            quality,
            l.optionalText("source").orElse(""),
            l.optionalText("observed_at").map(t -> l.instant("observed_at")),
            l.instant("received_at")));
  }

  private static CommandIntent command(Line l) {
    CommandIntent.Kind kind =
        CommandIntent.Kind.parse(l.text("kind"))
            .orElseThrow(() -> l.error("kind", "is not assert, release or pulse"));
    Optional<Band> band =
        l.optionalText("band")
            .map(b -> Band.parse(b).orElseThrow(() -> l.error("band", "is not a band: " + b)));
    return new CommandIntent(
        l.instant("at"),
        l.text("point"),
        kind,
        l.value("value"),
        l.optionalText("rule"),
        band,
        l.optionalText("detail").orElse(""));
  }

  /** One parsed line, whose accessors name the file, the line and the field in their errors. */
  private record Line(String file, int line, JsonNode node) {
    PassLogFormatException error(String field, String message) {
      return new PassLogFormatException(file + ":" + line + ": field '" + field + "' " + message);
    }

    String text(String field) {
      JsonNode n = node.get(field);
      if (n == null || !n.isTextual()) {
        throw error(field, n == null ? "is missing" : "is not a string");
      }
      return n.textValue();
    }

    Optional<String> optionalText(String field) {
      JsonNode n = node.get(field);
      return n == null || n.isNull() ? Optional.empty() : Optional.of(text(field));
    }

    long number(String field) {
      JsonNode n = node.get(field);
      if (n == null || !n.canConvertToLong() || !n.isIntegralNumber()) {
        throw error(field, n == null ? "is missing" : "is not an integer");
      }
      return n.longValue();
    }

    Instant instant(String field) {
      String t = text(field);
      try {
        return Instant.parse(t);
      } catch (DateTimeParseException e) {
        throw error(field, "is not an ISO-8601 instant: " + t);
      }
    }

    Value value(String field) {
      return PassLogJson.value(node.get(field))
          .orElseThrow(() -> error(field, "is not a boolean, number, string or null"));
    }
  }
}
