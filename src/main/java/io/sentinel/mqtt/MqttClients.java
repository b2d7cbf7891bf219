package io.sentinel.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientBuilder;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedContext;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import com.hivemq.client.mqtt.mqtt3.lifecycle.Mqtt3ClientConnectedContext;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientBuilder;
import com.hivemq.client.mqtt.mqtt5.lifecycle.Mqtt5ClientConnectedContext;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * HiveMQ client builders for a broker URL: {@code tcp://} (1883 by default), {@code ssl://} or
 * {@code mqtts://} (TLS, 8883), credentials from {@code user:password@}. The gateway and {@code
 * sentinel push} reach a broker the same way. What does not depend on the MQTT version (address,
 * TLS, reconnection, the connect and disconnect listeners) is set once on HiveMQ's version-neutral
 * {@link MqttClient#builder()}, which each version's builder takes over whole; only the
 * credentials, the will and the message callback are set per version, their types being its own.
 */
final class MqttClients {
  private MqttClients() {}

  /** A message as the client delivers it, with its RETAIN flag and its acknowledgement. */
  @FunctionalInterface
  interface Received {
    void message(String topic, byte[] payload, boolean retain, Runnable acknowledge);
  }

  /** What a session's client reports: each connect (session present?), each loss, each message. */
  record Hooks(Consumer<Boolean> connected, Consumer<Throwable> disconnected, Received received) {
    /** A message as either version's client delivers it. */
    void message(MqttTopic topic, byte[] payload, boolean retain, Runnable acknowledge) {
      received.message(topic.toString(), payload, retain, acknowledge);
    }
  }

  /**
   * The gateway's session over MQTT 3.1.1 ({@link MqttConnection}): automatic reconnection with
   * backoff, a retained last will that says offline, manual acknowledgement.
   */
  static Mqtt3AsyncClient session3(
      MqttConnection.Settings settings, String statusTopic, byte[] offlineStatus, Hooks hooks) {
    Mqtt3AsyncClient client =
        withCredentials(session(settings, hooks).useMqttVersion3(), settings.url())
            .willPublish()
            .topic(statusTopic)
            .payload(offlineStatus)
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .applyWillPublish()
            .buildAsync();
    // Registered before connecting: what the broker kept for the session arrives right after
    // CONNACK, before any subscribe call could register a callback. Manual acknowledgement: a QoS 1
    // message is acknowledged to the broker only when the consumer says so (the gateway: once its
    // pass is durable in the journal), so a crash before that has the broker deliver it again.
    Consumer<com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish> callback =
        p -> hooks.message(p.getTopic(), p.getPayloadAsBytes(), p.isRetain(), p::acknowledge);
    // On the shared loop, each message is a task of its own there, not a call inside the client's
    // read: an acknowledgement given at once would re-enter the client's delivery, and a gateway
    // so built stalled in the suite (connected, taking nothing; docs/runtime.md, "One event loop").
    if (settings.eventLoop().isPresent()) {
      client.publishes(MqttGlobalPublishFilter.ALL, callback, settings.eventLoop().get(), true);
    } else {
      client.publishes(MqttGlobalPublishFilter.ALL, callback, true);
    }
    return client;
  }

  /** The same session over MQTT 5 (the Receive Maximum is the connect's, in MqttConnection). */
  static Mqtt5AsyncClient session5(
      MqttConnection.Settings settings, String statusTopic, byte[] offlineStatus, Hooks hooks) {
    Mqtt5Publish will =
        Mqtt5Publish.builder()
            .topic(statusTopic)
            .payload(offlineStatus)
            .qos(MqttQos.AT_LEAST_ONCE)
            .retain(true)
            .build();
    Mqtt5AsyncClient client5 =
        withCredentials(session(settings, hooks).useMqttVersion5(), settings.url())
            .willPublish(will)
            .buildAsync();
    Consumer<Mqtt5Publish> callback =
        p -> hooks.message(p.getTopic(), p.getPayloadAsBytes(), p.isRetain(), p::acknowledge);
    if (settings.eventLoop().isPresent()) {
      client5.publishes(MqttGlobalPublishFilter.ALL, callback, settings.eventLoop().get(), true);
    } else {
      client5.publishes(MqttGlobalPublishFilter.ALL, callback, true);
    }
    return client5;
  }

  /** What a gateway session is whatever its version: reconnection with backoff, the hooks. */
  private static MqttClientBuilder session(MqttConnection.Settings settings, Hooks hooks) {
    MqttClientBuilder builder = address(settings.url(), settings.clientId(), settings.caFile());
    if (settings.eventLoop().isPresent()) {
      builder =
          builder.executorConfig().nettyExecutor(settings.eventLoop().get()).applyExecutorConfig();
    }
    return builder
        .automaticReconnect()
        .initialDelay(settings.reconnectInitial().toMillis(), TimeUnit.MILLISECONDS)
        .maxDelay(settings.reconnectMax().toMillis(), TimeUnit.MILLISECONDS)
        .applyAutomaticReconnect()
        .addConnectedListener(ctx -> hooks.connected().accept(sessionPresent(ctx)))
        .addDisconnectedListener(
            ctx -> {
              // A broker that lost the session (restarted without persistence) gets the
              // subscriptions again; unacknowledged publishes fail and the command plane
              // re-sends them itself, with their ids, in order.
              ctx.getReconnector()
                  .resubscribeIfSessionExpired(true)
                  .republishIfSessionExpired(false);
              hooks.disconnected().accept(ctx.getCause());
            });
  }

  /** Whether the broker kept the session, from the CONNACK of the client's own version. */
  private static boolean sessionPresent(MqttClientConnectedContext ctx) {
    return ctx instanceof Mqtt5ClientConnectedContext c5
        ? c5.getConnAck().isSessionPresent()
        : ((Mqtt3ClientConnectedContext) ctx).getConnAck().isSessionPresent();
  }

  private static boolean tls(URI url) {
    return url.getScheme().equals("ssl") || url.getScheme().equals("mqtts");
  }

  private static int port(URI url) {
    return url.getPort() > 0 ? url.getPort() : tls(url) ? 8883 : 1883;
  }

  /** The broker's address and TLS, for either version. */
  private static MqttClientBuilder address(URI url, String clientId, Optional<Path> caFile) {
    MqttClientBuilder builder =
        MqttClient.builder().identifier(clientId).serverHost(url.getHost()).serverPort(port(url));
    if (tls(url) && caFile.isPresent()) {
      builder =
          builder
              .sslConfig()
              .trustManagerFactory(BrokerTls.trusting(caFile.get()))
              .applySslConfig();
    } else if (tls(url)) {
      builder = builder.sslWithDefaultConfig();
    }
    return builder;
  }

  /** The user and password of a URL's {@code user:password@}. */
  private record Credentials(String user, byte[] password) {}

  private static Optional<Credentials> credentials(URI url) {
    if (url.getUserInfo() == null) {
      return Optional.empty();
    }
    String[] user = url.getUserInfo().split(":", 2);
    return Optional.of(
        new Credentials(
            user[0], (user.length > 1 ? user[1] : "").getBytes(StandardCharsets.UTF_8)));
  }

  private static Mqtt3ClientBuilder withCredentials(Mqtt3ClientBuilder b, URI url) {
    return credentials(url)
        .<Mqtt3ClientBuilder>map(
            u -> b.simpleAuth().username(u.user()).password(u.password()).applySimpleAuth())
        .orElse(b);
  }

  private static Mqtt5ClientBuilder withCredentials(Mqtt5ClientBuilder b, URI url) {
    return credentials(url)
        .<Mqtt5ClientBuilder>map(
            u -> b.simpleAuth().username(u.user()).password(u.password()).applySimpleAuth())
        .orElse(b);
  }

  /** A plain MQTT 3.1.1 client of the broker (the CLI's and the tests'). */
  static Mqtt3ClientBuilder builder3(URI url, String clientId, Optional<Path> caFile) {
    return withCredentials(address(url, clientId, caFile).useMqttVersion3(), url);
  }
}
