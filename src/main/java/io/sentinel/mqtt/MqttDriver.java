package io.sentinel.mqtt;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.point.CommandTemplate;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.wire.Payloads;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commands as MQTT messages: {@code sentinel/<site>/commands/<id>} (or the point's {@code
 * driver.mqtt.topic}), QoS 1; or as the device spells them, with its QoS and retain, when the
 * point's driver has a template (docs/devices.md). Ready while connected; a command is delivered
 * when the broker acknowledged it.
 */
public final class MqttDriver implements Driver {
  /** Where the outcome of each command goes (the runtime moves it onto the engine's thread). */
  public interface Outcomes {
    void delivered(String commandId);

    void failed(String commandId, Throwable cause);
  }

  private final MqttConnection connection;
  private final Topics topics;
  private final Outcomes outcomes;
  private final Map<String, String> topicOf = new ConcurrentHashMap<>();
  private final Map<String, CommandTemplate> templateOf = new ConcurrentHashMap<>();

  public MqttDriver(MqttConnection connection, Topics topics, Outcomes outcomes) {
    this.connection = connection;
    this.topics = topics;
    this.outcomes = outcomes;
  }

  /** Takes a point's own command topic into account, if its driver names one. */
  public MqttDriver serve(PointSpec spec) {
    String topic =
        spec.driver().orElse(null) instanceof PointDriver.Mqtt m && m.topic().isPresent()
            ? m.topic().get()
            : topics.command(spec.id());
    topicOf.put(spec.id(), topic);
    if (spec.driver().orElse(null) instanceof PointDriver.Mqtt m && m.template().isPresent()) {
      templateOf.put(spec.id(), m.template().get());
    }
    return this;
  }

  @Override
  public String name() {
    return "mqtt";
  }

  @Override
  public boolean ready() {
    return connection.connected();
  }

  @Override
  public void send(Command command) {
    String topic = topicOf.computeIfAbsent(command.pointId(), topics::command);
    CommandTemplate template = templateOf.get(command.pointId());
    CompletableFuture<?> sent;
    if (template == null) {
      sent = connection.publishCommand(topic, Payloads.command(command));
    } else {
      Optional<String> payload = template.render(command.value());
      if (payload.isEmpty()) {
        // A release without a release_value: the device has no spelling for "no value", so it is
        // left as it is (docs/devices.md); done, as far as the plane is concerned.
        outcomes.delivered(command.commandId());
        return;
      }
      sent =
          connection.publishCommand(
              topic,
              payload.get().getBytes(StandardCharsets.UTF_8),
              template.qos(),
              template.retain());
    }
    sent.whenComplete(
        (ack, error) -> {
          if (error == null) {
            outcomes.delivered(command.commandId());
          } else {
            outcomes.failed(command.commandId(), error);
          }
        });
  }
}
