package io.sentinel.runtime;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.wire.Payloads;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One core's role, retained on {@code sentinel/<site>/cores/<client-id>} (docs/standby.md): {@code
 * standby} or {@code active} with its epoch, {@code offline} from its last will or its stop. Its
 * own small MQTT session, up while the core stands by (the gateway's own session, and the site's
 * {@code status}, are the active core's alone: two cores on one retained topic would overwrite each
 * other's state).
 */
final class CoreStatus implements AutoCloseable {
  private final Mqtt3AsyncClient client;
  private final String topic;
  private final Instant started;
  private volatile byte[] current;

  CoreStatus(URI broker, String clientId, String topic, Instant started) {
    this.topic = topic;
    this.started = started;
    this.current = payload("standby", 0);
    this.client =
        MqttConnection.builder(broker, clientId + "-role")
            .automaticReconnectWithDefaultConfig()
            .willPublish()
            .topic(topic)
            .payload(payload("offline", 0))
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .applyWillPublish()
            .addConnectedListener(ctx -> sendCurrent())
            .buildAsync();
  }

  void start() {
    client.connectWith().cleanSession(true).send();
  }

  /** {@code standby} or {@code active}, published now or at the next connection. */
  synchronized void set(String state, long epoch) {
    byte[] next = payload(state, epoch);
    if (!java.util.Arrays.equals(next, current)) {
      current = next;
      send(next);
    }
  }

  /**
   * What a new connection says, under the lock {@link #set} holds: unlocked, the listener could
   * read "standby", then {@code set("active")} publish, then the listener's "standby" go out after
   * it and stay retained (a suspect for StandbyFailoverIT's "timed out waiting for core-a active").
   */
  private synchronized void sendCurrent() {
    send(current);
  }

  private void send(byte[] payload) {
    if (client.getState().isConnected()) {
      client
          .publishWith()
          .topic(topic)
          .payload(payload)
          .qos(MqttQos.AT_LEAST_ONCE)
          .retain(true)
          .send();
    }
  }

  private byte[] payload(String state, long epoch) {
    JsonObject o =
        new JsonObject(
            new String(Payloads.status(state, Optional.empty(), started), StandardCharsets.UTF_8));
    if (epoch > 0) {
      o.put("epoch", epoch);
    }
    return o.encode().getBytes(StandardCharsets.UTF_8);
  }

  /** Says offline (a clean disconnect sends no will), then disconnects. */
  @Override
  public void close() {
    try {
      if (client.getState().isConnected()) {
        client
            .publishWith()
            .topic(topic)
            .payload(payload("offline", 0))
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .send()
            .get(2, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      // the broker is away: its will says offline once it notices
    } finally {
      client.disconnect();
    }
  }
}
