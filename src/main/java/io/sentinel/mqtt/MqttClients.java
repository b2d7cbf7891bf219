package io.sentinel.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import com.hivemq.client.mqtt.mqtt3.lifecycle.Mqtt3ClientConnectedContext;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientBuilder;
import com.hivemq.client.mqtt.mqtt5.lifecycle.Mqtt5ClientConnectedContext;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * HiveMQ client builders for a broker URL: {@code tcp://} (1883 by default), {@code ssl://} or
 * {@code mqtts://} (TLS, 8883), credentials from {@code user:password@}. The gateway and {@code
 * sentinel push} reach a broker the same way.
 */
final class MqttClients {
  private MqttClients() {}

  /** A message as the client delivers it, with its RETAIN flag and its acknowledgement. */
  @FunctionalInterface
  interface Received {
    void message(String topic, byte[] payload, boolean retain, Runnable acknowledge);
  }

  /** What a session's client reports: each connect (session present?), each loss, each message. */
  record Hooks(Consumer<Boolean> connected, Consumer<Throwable> disconnected, Received received) {}

  /**
   * The gateway's session over MQTT 3.1.1 ({@link MqttConnection}): automatic reconnection with
   * backoff, a retained last will that says offline, manual acknowledgement.
   */
  static Mqtt3AsyncClient session3(
      MqttConnection.Settings settings, String statusTopic, byte[] offlineStatus, Hooks hooks) {
    Mqtt3AsyncClient client =
        builder3(settings.url(), settings.clientId(), settings.caFile())
            .automaticReconnect()
            .initialDelay(settings.reconnectInitial().toMillis(), TimeUnit.MILLISECONDS)
            .maxDelay(settings.reconnectMax().toMillis(), TimeUnit.MILLISECONDS)
            .applyAutomaticReconnect()
            .willPublish()
            .topic(statusTopic)
            .payload(offlineStatus)
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .applyWillPublish()
            .addConnectedListener(
                ctx ->
                    hooks
                        .connected()
                        .accept(
                            ((Mqtt3ClientConnectedContext) ctx).getConnAck().isSessionPresent()))
            .addDisconnectedListener(
                ctx -> {
                  // A broker that lost the session (restarted without persistence) gets the
                  // subscriptions again; unacknowledged publishes fail and the command plane
                  // re-sends them itself, with their ids, in order.
                  ctx.getReconnector()
                      .resubscribeIfSessionExpired(true)
                      .republishIfSessionExpired(false);
                  hooks.disconnected().accept(ctx.getCause());
                })
            .buildAsync();
    // Registered before connecting: what the broker kept for the session arrives right after
    // CONNACK, before any subscribe call could register a callback. Manual acknowledgement: a QoS 1
    // message is acknowledged to the broker only when the consumer says so (the gateway: once its
    // pass is durable in the journal), so a crash before that has the broker deliver it again.
    client.publishes(
        MqttGlobalPublishFilter.ALL,
        (Mqtt3Publish p) ->
            hooks
                .received()
                .message(
                    p.getTopic().toString(), p.getPayloadAsBytes(), p.isRetain(), p::acknowledge),
        true);
    return client;
  }

  /** The same session over MQTT 5, with the Receive Maximum the settings give. */
  static Mqtt5AsyncClient session5(
      MqttConnection.Settings settings, String statusTopic, byte[] offlineStatus, Hooks hooks) {
    Mqtt5AsyncClient c =
        builder5(settings.url(), settings.clientId(), settings.caFile())
            .automaticReconnect()
            .initialDelay(settings.reconnectInitial().toMillis(), TimeUnit.MILLISECONDS)
            .maxDelay(settings.reconnectMax().toMillis(), TimeUnit.MILLISECONDS)
            .applyAutomaticReconnect()
            .willPublish()
            .topic(statusTopic)
            .payload(offlineStatus)
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .applyWillPublish()
            .addConnectedListener(
                ctx ->
                    hooks
                        .connected()
                        .accept(
                            ((Mqtt5ClientConnectedContext) ctx).getConnAck().isSessionPresent()))
            .addDisconnectedListener(
                ctx -> {
                  ctx.getReconnector()
                      .resubscribeIfSessionExpired(true)
                      .republishIfSessionExpired(false);
                  hooks.disconnected().accept(ctx.getCause());
                })
            .buildAsync();
    c.publishes(
        MqttGlobalPublishFilter.ALL,
        p ->
            hooks
                .received()
                .message(
                    p.getTopic().toString(), p.getPayloadAsBytes(), p.isRetain(), p::acknowledge),
        true);
    return c;
  }

  private static boolean tls(URI url) {
    return url.getScheme().equals("ssl") || url.getScheme().equals("mqtts");
  }

  private static int port(URI url) {
    return url.getPort() > 0 ? url.getPort() : tls(url) ? 8883 : 1883;
  }

  static Mqtt3ClientBuilder builder3(URI url, String clientId, Optional<Path> caFile) {
    Mqtt3ClientBuilder builder =
        MqttClient.builder()
            .useMqttVersion3()
            .identifier(clientId)
            .serverHost(url.getHost())
            .serverPort(port(url));
    if (tls(url) && caFile.isPresent()) {
      builder =
          builder
              .sslConfig()
              .trustManagerFactory(BrokerTls.trusting(caFile.get()))
              .applySslConfig();
    } else if (tls(url)) {
      builder = builder.sslWithDefaultConfig();
    }
    if (url.getUserInfo() != null) {
      String[] user = url.getUserInfo().split(":", 2);
      builder =
          builder
              .simpleAuth()
              .username(user[0])
              .password((user.length > 1 ? user[1] : "").getBytes(StandardCharsets.UTF_8))
              .applySimpleAuth();
    }
    return builder;
  }

  static Mqtt5ClientBuilder builder5(URI url, String clientId, Optional<Path> caFile) {
    Mqtt5ClientBuilder b =
        MqttClient.builder()
            .useMqttVersion5()
            .identifier(clientId)
            .serverHost(url.getHost())
            .serverPort(port(url));
    if (tls(url) && caFile.isPresent()) {
      b = b.sslConfig().trustManagerFactory(BrokerTls.trusting(caFile.get())).applySslConfig();
    } else if (tls(url)) {
      b = b.sslWithDefaultConfig();
    }
    if (url.getUserInfo() != null) {
      String[] user = url.getUserInfo().split(":", 2);
      b =
          b.simpleAuth()
              .username(user[0])
              .password((user.length > 1 ? user[1] : "").getBytes(StandardCharsets.UTF_8))
              .applySimpleAuth();
    }
    return b;
  }
}
