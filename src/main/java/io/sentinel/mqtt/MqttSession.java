package io.sentinel.mqtt;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.Mqtt3Subscribe;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.Mqtt3Subscription;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.Mqtt5Subscribe;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.Mqtt5Subscription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jboss.logging.Logger;

/**
 * {@link MqttConnection}'s client in the MQTT version its settings name: MQTT 5 (a persistent
 * session without expiry, the Receive Maximum) or MQTT 3.1.1 (clean session off); connect, publish,
 * subscribe at QoS 1, disconnect. The one place that tells the two versions apart after the clients
 * are built ({@link MqttClients}).
 */
final class MqttSession {
  private static final Logger LOG = Logger.getLogger(MqttConnection.class);

  private final Mqtt3AsyncClient client;
  private final Mqtt5AsyncClient client5;
  private final MqttConnection.Settings settings;

  MqttSession(
      MqttConnection.Settings settings,
      String statusTopic,
      byte[] offlineStatus,
      MqttClients.Hooks hooks) {
    this.settings = settings;
    this.client5 =
        settings.mqttVersion() == 5
            ? MqttClients.session5(settings, statusTopic, offlineStatus, hooks)
            : null;
    this.client =
        settings.mqttVersion() == 5
            ? null
            : MqttClients.session3(settings, statusTopic, offlineStatus, hooks);
  }

  /** The first connect (the client reconnects by itself after it). */
  CompletableFuture<?> connect() {
    return client5 != null
        ? client5
            .connectWith()
            .cleanStart(false)
            .noSessionExpiry()
            .keepAlive((int) settings.keepAlive().toSeconds())
            .restrictions()
            .receiveMaximum(settings.receiveMaximum())
            .applyRestrictions()
            .send()
        : client
            .connectWith()
            .cleanSession(false)
            .keepAlive((int) settings.keepAlive().toSeconds())
            .send();
  }

  /** The client's configuration, for {@link ReadPause}. */
  Object config() {
    return client5 != null ? client5.getConfig() : client.getConfig();
  }

  CompletableFuture<?> disconnect() {
    return client5 != null ? client5.disconnect() : client.disconnect();
  }

  CompletableFuture<?> send(String topic, byte[] payload, MqttQos qos, boolean retain) {
    if (client5 != null) {
      return client5.publishWith().topic(topic).payload(payload).qos(qos).retain(retain).send();
    }
    return client.publishWith().topic(topic).payload(payload).qos(qos).retain(retain).send();
  }

  /** Subscribes to {@code topics} at QoS 1; a failure is logged. */
  CompletableFuture<?> subscribe(Collection<String> topics) {
    CompletableFuture<?> sent;
    if (client5 != null) {
      List<Mqtt5Subscription> subs = new ArrayList<>();
      topics.forEach(
          f ->
              subs.add(
                  Mqtt5Subscription.builder().topicFilter(f).qos(MqttQos.AT_LEAST_ONCE).build()));
      sent = client5.subscribe(Mqtt5Subscribe.builder().addSubscriptions(subs).build());
    } else {
      List<Mqtt3Subscription> subs = new ArrayList<>();
      topics.forEach(
          f ->
              subs.add(
                  Mqtt3Subscription.builder().topicFilter(f).qos(MqttQos.AT_LEAST_ONCE).build()));
      sent = client.subscribe(Mqtt3Subscribe.builder().addSubscriptions(subs).build());
    }
    return sent.whenComplete(
        (ack, error) -> {
          if (error != null && client5 != null) {
            LOG.errorf("SEN-012 subscribing to %s failed: %s", topics, error.getMessage());
          } else if (error != null) {
            LOG.errorf("SEN-009 subscribing to %s failed: %s", topics, error.getMessage());
          }
        });
  }

  /** The version and its window of unacknowledged messages, as the connect line says it. */
  String window() {
    return client5 != null
        ? "MQTT 5, receive maximum " + settings.receiveMaximum()
        : "MQTT 3.1.1: the broker's max_inflight_messages is the window";
  }
}
