package io.sentinel.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The gateway's connection to an embedded broker, every message's acknowledgement kept for the test
 * to give, and a device that publishes to it: what the MQTT tests of acknowledgements share.
 */
final class EmbeddedSession {
  private EmbeddedSession() {}

  /**
   * The gateway as {@code id}, subscribed to {@code id/in/#}; each message's ack into {@code acks}.
   */
  static MqttConnection gateway(EmbeddedBroker broker, String id, List<Runnable> acks) {
    return gateway(broker, id, (topic, payload, delivery, ack) -> acks.add(ack), Optional.empty());
  }

  /** The gateway as {@code id}, each message to {@code inbound}, on {@code loop} if given. */
  static MqttConnection gateway(
      EmbeddedBroker broker,
      String id,
      MqttConnection.Inbound inbound,
      Optional<java.util.concurrent.Executor> loop) {
    return new MqttConnection(
        new MqttConnection.Settings(
            URI.create(broker.url()),
            id,
            Duration.ofSeconds(30),
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            100,
            3,
            65_534,
            Optional.empty(),
            loop),
        id + "/status",
        () -> new byte[0],
        new byte[0],
        List.of(id + "/in/#"),
        inbound,
        NoListener.INSTANCE,
        Optional.empty());
  }

  /** A device, connected, as {@code device-<id>}. */
  static Mqtt3BlockingClient device(EmbeddedBroker broker, String id) {
    Mqtt3BlockingClient device =
        MqttClient.builder()
            .useMqttVersion3()
            .identifier("device-" + id)
            .serverHost("127.0.0.1")
            .serverPort(broker.port())
            .buildBlocking();
    device.connect();
    return device;
  }

  /** {@code count} QoS 1 messages on {@code id/in/0 ...}, each its number. */
  static void publish(Mqtt3BlockingClient device, String id, int count) {
    for (int i = 0; i < count; i++) {
      device
          .publishWith()
          .topic(id + "/in/" + i)
          .qos(MqttQos.AT_LEAST_ONCE)
          .payload(Integer.toString(i).getBytes(StandardCharsets.UTF_8))
          .send();
    }
  }
}
