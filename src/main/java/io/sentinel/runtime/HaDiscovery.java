package io.sentinel.runtime;

import io.sentinel.mqtt.Topics;
import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Home Assistant MQTT discovery configs for a site (docs/devices.md, "Home Assistant"): the points
 * whose state the gateway publishes, as {@code binary_sensor} or {@code sensor} on their {@code
 * state/<id>}; the outputs as {@code switch}, {@code number} or {@code select} on their {@code
 * claims/<id>}, with the winning rule and band as attributes and a command topic of their own
 * ({@code sentinel/<site>/ha/<id>/set}) whose commands become operator overrides; the gateway's
 * self points as {@code binary_sensor}. Every entity is available while {@code status} says {@code
 * online}; a sensor also needs its point live or stale.
 */
final class HaDiscovery {
  /** A discovery config: where it goes (retained) and what it says. */
  record Config(String topic, String component, String pointOrSelf, JsonObject payload) {}

  private final String prefix;
  private final Topics topics;
  private final String node;

  HaDiscovery(String prefix, Topics topics) {
    this.prefix = prefix;
    this.topics = topics;
    this.node = "sentinel_" + safe(topics.site());
  }

  /** Where the command of an output's HA entity arrives. */
  String commandTopic(String pointId) {
    return topics.root() + "ha/" + pointId + "/set";
  }

  /** What the gateway subscribes to for HA commands. */
  String commandFilter() {
    return topics.root() + "ha/+/set";
  }

  /** The point a command topic names, if it is one. */
  Optional<String> commandPoint(String topic) {
    String start = topics.root() + "ha/";
    if (topic.startsWith(start) && topic.endsWith("/set")) {
      String id = topic.substring(start.length(), topic.length() - "/set".length());
      return id.isEmpty() || id.contains("/") ? Optional.empty() : Optional.of(id);
    }
    return Optional.empty();
  }

  /**
   * @param points every registry entry and derived point
   * @param stated the points that publish their state
   * @param selfPoints the names of the self points to show
   */
  List<Config> configs(Collection<PointSpec> points, Set<String> stated, List<String> selfPoints) {
    List<Config> out = new ArrayList<>();
    for (PointSpec p : points) {
      if (p.direction().claimable()) {
        out.add(output(p));
      }
      if (stated.contains(p.id()) && p.direction() != Direction.OUT) {
        out.add(sensor(p));
      }
    }
    for (String name : selfPoints) {
      JsonObject c =
          base("self " + name, "self_" + name)
              .put("state_topic", topics.self(name))
              .put("value_template", "{{ 'ON' if value_json.value else 'OFF' }}")
              .put("entity_category", "diagnostic");
      out.add(config("binary_sensor", "self_" + name, name, c));
    }
    return out;
  }

  private Config sensor(PointSpec p) {
    String state = topics.state(p.id());
    boolean bool = p.type() instanceof PointType.Bool;
    JsonObject c =
        base(p.id(), p.id())
            .put("state_topic", state)
            .put(
                "value_template",
                bool ? "{{ 'ON' if value_json.value else 'OFF' }}" : "{{ value_json.value }}")
            .put("json_attributes_topic", state);
    c.getJsonArray("availability")
        .add(
            new JsonObject()
                .put("topic", state)
                .put(
                    "value_template",
                    "{{ 'online' if value_json.quality in ['live', 'stale'] else 'offline' }}"));
    c.put("availability_mode", "all");
    if (p.unit() != MeasureUnit.NONE) {
      c.put("unit_of_measurement", unit(p.unit()));
    }
    if (p.type() instanceof PointType.Enum e) {
      c.put("device_class", "enum").put("options", new JsonArray(new ArrayList<>(e.values())));
    }
    return config(bool ? "binary_sensor" : "sensor", p.id(), p.id(), c);
  }

  private Config output(PointSpec p) {
    String claims = topics.claims(p.id());
    JsonObject c =
        base(p.id(), p.id() + "_output")
            .put("state_topic", claims)
            .put("command_topic", commandTopic(p.id()))
            .put("json_attributes_topic", claims)
            .put(
                "json_attributes_template",
                "{{ {'rule': value_json.winner.rule if value_json.winner else none,"
                    + " 'band': value_json.winner.band if value_json.winner else none,"
                    + " 'deciding_key': value_json.deciding_key} | tojson }}");
    String component;
    if (p.type() instanceof PointType.Bool) {
      component = "switch";
      c.put("value_template", "{{ 'ON' if value_json.value else 'OFF' }}")
          .put("payload_on", "ON")
          .put("payload_off", "OFF");
    } else if (p.type() instanceof PointType.Number) {
      component = "number";
      c.put("value_template", "{{ value_json.value }}").put("mode", "box");
      // HA's own default is 1 to 100: without a range, wide enough for any reading.
      PointSpec.Range r = p.range().orElse(new PointSpec.Range(-1e9, 1e9));
      c.put("min", r.min()).put("max", r.max()).put("step", p.deadband() > 0 ? p.deadband() : 0.01);
      if (p.unit() != MeasureUnit.NONE) {
        c.put("unit_of_measurement", unit(p.unit()));
      }
    } else if (p.type() instanceof PointType.Enum e) {
      component = "select";
      c.put("value_template", "{{ value_json.value }}")
          .put("options", new JsonArray(new ArrayList<>(e.values())));
    } else {
      component = "text";
      c.put("value_template", "{{ value_json.value }}");
    }
    return config(component, p.id() + "_output", p.id(), c);
  }

  /** What every entity has: its name, ids, the device it belongs to and Sentinel's status. */
  private JsonObject base(String name, String object) {
    return new JsonObject()
        .put("name", name)
        .put("unique_id", node + "_" + safe(object))
        .put("object_id", node + "_" + safe(object))
        .put(
            "device",
            new JsonObject()
                .put("identifiers", new JsonArray().add(node))
                .put("name", "Sentinel " + topics.site())
                .put("manufacturer", "Sentinel")
                .put("model", "edge rules gateway"))
        .put(
            "availability",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("topic", topics.status())
                        .put("value_template", "{{ value_json.state }}")
                        .put("payload_available", "online")
                        .put("payload_not_available", "offline")));
  }

  private Config config(String component, String object, String subject, JsonObject payload) {
    return new Config(
        prefix + "/" + component + "/" + node + "/" + safe(object) + "/config",
        component,
        subject,
        payload);
  }

  /** The unit as Home Assistant writes it: °C, not degC. */
  static String unit(MeasureUnit u) {
    return switch (u.symbol()) {
      case "degC" -> "°C";
      case "degF" -> "°F";
      default -> u.symbol();
    };
  }

  /** HA's node and object ids are letters, digits, _ and -. */
  static String safe(String s) {
    return s.replaceAll("[^A-Za-z0-9_-]", "_");
  }
}
