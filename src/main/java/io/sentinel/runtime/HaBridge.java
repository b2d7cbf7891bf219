package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Value;
import io.sentinel.wire.Payloads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Home Assistant on the gateway's MQTT connection (docs/devices.md, "Home Assistant"): the
 * discovery configs, published retained, and the commands of the output entities, each taken as an
 * operator-band override with an expiry through the engine's operator request, as the HTTP API's
 * {@code PUT /api/v1/overrides/<id>} does (one pass right after it, logged, audited and published
 * like any pass). Interlock and safety claims still win over it, as over any operator override.
 */
final class HaBridge {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final HaDiscovery discovery;
  private final List<HaDiscovery.Config> configs;
  private final Map<String, PointSpec> outputs;
  private final Duration overrideFor;
  private final Topics topics;
  private final Supplier<EngineLoop> loop;
  private final Supplier<MqttConnection> mqtt;
  private final InstantSource clock;

  HaBridge(
      HaDiscovery discovery,
      List<HaDiscovery.Config> configs,
      Map<String, PointSpec> outputs,
      Duration overrideFor,
      Topics topics,
      Supplier<EngineLoop> loop,
      Supplier<MqttConnection> mqtt,
      InstantSource clock) {
    this.discovery = discovery;
    this.configs = List.copyOf(configs);
    this.outputs = Map.copyOf(outputs);
    this.overrideFor = overrideFor;
    this.topics = topics;
    this.loop = loop;
    this.mqtt = mqtt;
    this.clock = clock;
  }

  String commandFilter() {
    return discovery.commandFilter();
  }

  /** Every config, retained (the connection sends them again after a reconnect). */
  void announce(MqttConnection connection) {
    configs.forEach(c -> connection.publishRetained(c.topic(), c.payload().toBuffer().getBytes()));
    LOG.infof(
        "SEN-182 Home Assistant discovery: %d entities announced; commands on %s take an operator"
            + " override for %d s",
        configs.size(), discovery.commandFilter(), overrideFor.toSeconds());
  }

  /** HA's commands here, every other message to {@code next}. */
  MqttConnection.Inbound routing(MqttConnection.Inbound next) {
    return new MqttConnection.Inbound() {
      @Override
      public void message(
          String topic, byte[] payload, MqttConnection.Delivery delivery, Runnable acknowledge) {
        Optional<String> point = discovery.commandPoint(topic);
        if (point.isEmpty()) {
          next.message(topic, payload, delivery, acknowledge);
          return;
        }
        try {
          // A command is an operator's, of its moment: one retained or queued while the gateway
          // was away is not taken (docs/devices.md).
          if (!delivery.retained() && !delivery.backlog()) {
            command(topic, point.get(), new String(payload, StandardCharsets.UTF_8).trim());
          }
        } finally {
          acknowledge.run();
        }
      }
    };
  }

  private void command(String topic, String pointId, String text) {
    PointSpec spec = outputs.get(pointId);
    if (spec == null) {
      refuse(topic, pointId, "no output " + pointId);
      return;
    }
    Optional<Value> value = parse(spec, text);
    if (value.isEmpty()) {
      refuse(topic, pointId, "'" + clip(text) + "' is not a value of " + describe(spec));
      return;
    }
    EngineLoop l = loop.get();
    if (l == null) {
      return;
    }
    l.operate(
            (e, now) -> {
              OperatorOverride o =
                  new OperatorOverride(
                      pointId,
                      value.get(),
                      now.plus(overrideFor),
                      "homeassistant",
                      "Home Assistant command on " + topic);
              Optional<OperatorOverride.Rejection> r =
                  o.check(e.points().spec(e.points().indexOf(pointId)), now);
              if (r.isPresent()) {
                throw new IllegalArgumentException(r.get().message());
              }
              e.override(o);
              return o;
            })
        .whenComplete(
            (o, error) -> {
              if (error != null) {
                refuse(topic, pointId, rootMessage(error));
              } else {
                LOG.infof(
                    "SEN-183 Home Assistant override of %s to %s until %s",
                    pointId, o.value(), o.until());
              }
            });
  }

  /** ON/OFF for a switch, a number for a number, one of the options for a select. */
  static Optional<Value> parse(PointSpec spec, String text) {
    PointType type = spec.type();
    if (type instanceof PointType.Bool) {
      return text.equals("ON")
          ? Optional.of(Value.TRUE)
          : text.equals("OFF") ? Optional.of(Value.FALSE) : Optional.empty();
    }
    if (type instanceof PointType.Number) {
      try {
        Value v = Value.of(Double.parseDouble(text));
        return type.accepts(v) ? Optional.of(v) : Optional.empty();
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    Value v = Value.of(text);
    return type.accepts(v) ? Optional.of(v) : Optional.empty();
  }

  private static String describe(PointSpec spec) {
    PointType t = spec.type();
    return t instanceof PointType.Bool
        ? spec.id() + " (ON or OFF)"
        : t instanceof PointType.Enum e ? spec.id() + " (" + e.values() + ")" : spec.id();
  }

  /** An event, never an exception on the client's thread: HA's command was not taken. */
  private void refuse(String topic, String pointId, String why) {
    LOG.warnf("SEN-184 Home Assistant command on %s not taken: %s", topic, why);
    MqttConnection m = mqtt.get();
    if (m != null) {
      m.publishEvent(
          topics.events("ha-command-refused"),
          Payloads.event(
              new ControlEvent(
                  "ha-command-refused", pointId, why + " (" + topic + ")", clock.instant())));
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c != c.getCause()) {
      c = c.getCause();
    }
    return String.valueOf(c.getMessage());
  }

  private static String clip(String s) {
    String t = s.replaceAll("\\p{Cntrl}", "?");
    return t.length() > 40 ? t.substring(0, 40) + "…" : t;
  }
}
