package io.sentinel.runtime;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A test's own MQTT client: publishes like a device and records everything it receives. */
public final class BrokerClient implements AutoCloseable {
  /** One message as received, with the instant it arrived. */
  public record Received(String topic, byte[] payload, Instant at) {
    public String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }

    public JsonObject json() {
      return new JsonObject(text());
    }
  }

  private final Mqtt3AsyncClient client;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private volatile Consumer<Received> onMessage = r -> {};

  public BrokerClient(String url, String clientId, boolean persistentSession) {
    URI u = URI.create(url);
    client =
        MqttClient.builder()
            .useMqttVersion3()
            .identifier(clientId)
            .serverHost(u.getHost())
            .serverPort(u.getPort())
            .automaticReconnect()
            .initialDelay(100, TimeUnit.MILLISECONDS)
            .maxDelay(500, TimeUnit.MILLISECONDS)
            .applyAutomaticReconnect()
            .buildAsync();
    client.publishes(
        MqttGlobalPublishFilter.ALL,
        p -> {
          Received r = new Received(p.getTopic().toString(), p.getPayloadAsBytes(), Instant.now());
          received.add(r);
          onMessage.accept(r);
        });
    // Bounded: a broker that never answers fails the test that asked, instead of hanging the run.
    client
        .connectWith()
        .cleanSession(!persistentSession)
        .send()
        .orTimeout(30, TimeUnit.SECONDS)
        .join();
  }

  public BrokerClient subscribe(String... filters) {
    for (String f : filters) {
      client.subscribeWith().topicFilter(f).qos(MqttQos.AT_LEAST_ONCE).send().join();
    }
    return this;
  }

  /** Called for every message, on the client's thread (a simulated device reacts here). */
  public void onMessage(Consumer<Received> handler) {
    this.onMessage = handler;
  }

  /** Publishes at QoS 1 and waits for the broker's acknowledgement, never forever. */
  public void publish(String topic, String payload) {
    try {
      publishAsync(topic, payload.getBytes(StandardCharsets.UTF_8), false)
          .get(20, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError(
          "the broker did not acknowledge a publish to " + topic + " in 20 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new AssertionError("publish to " + topic + " failed", e.getCause());
    }
  }

  public CompletableFuture<?> publishAsync(String topic, byte[] payload, boolean retain) {
    return client
        .publishWith()
        .topic(topic)
        .payload(payload)
        .qos(MqttQos.AT_LEAST_ONCE)
        .retain(retain)
        .send();
  }

  public List<Received> received() {
    return List.copyOf(received);
  }

  public List<Received> on(String topic) {
    return received.stream().filter(r -> r.topic().equals(topic)).toList();
  }

  public Optional<Received> last(String topic) {
    List<Received> all = on(topic);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  public boolean connected() {
    return client.getState().isConnected();
  }

  @Override
  public void close() {
    try {
      client.disconnect().get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      // already gone: nothing to undo
    }
  }
}
