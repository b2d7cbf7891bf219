package io.sentinel.mqtt;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.wire.Payloads;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commands as MQTT messages: {@code sentinel/<site>/commands/<id>} (or the point's {@code
 * driver.mqtt.topic}), QoS 1. Ready while connected; a command is delivered when the broker
 * acknowledged it.
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
    connection
        .publishCommand(topic, Payloads.command(command))
        .whenComplete(
            (ack, error) -> {
              if (error == null) {
                outcomes.delivered(command.commandId());
              } else {
                outcomes.failed(command.commandId(), error);
              }
            });
  }
}
