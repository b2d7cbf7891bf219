package io.sentinel.cli;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.sentinel.audit.AuditAnchor;
import io.sentinel.mqtt.BrokerTls;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The retained audit anchor of a site, read from its broker ({@code sentinel audit verify}). */
final class AnchorFromBroker {
  private AnchorFromBroker() {}

  static AuditAnchor take(String broker, String site, Duration wait) throws InterruptedException {
    return take(broker, site, System.nanoTime() + wait.toNanos(), false);
  }

  private static AuditAnchor take(
      String broker, String site, long deadlineNanos, boolean lostBefore)
      throws InterruptedException {
    Duration wait = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    URI url = URI.create(broker.contains("://") ? broker : "tcp://" + broker);
    String where = url.getScheme() + "://" + url.getHost() + ":" + url.getPort();
    String topic = new Topics(site).auditAnchor();
    CompletableFuture<String> anchor = new CompletableFuture<>();
    Mqtt3AsyncClient client =
        MqttConnection.builder(
                url, "sentinel-audit-" + UUID.randomUUID().toString().substring(0, 8))
            .buildAsync();
    client.publishes(
        MqttGlobalPublishFilter.ALL,
        p -> {
          if (p.getTopic().toString().equals(topic) && p.getPayloadAsBytes().length > 0) {
            anchor.complete(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8));
          }
        });
    try {
      client.connectWith().cleanSession(true).send().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      client
          .subscribeWith()
          .topicFilter(topic)
          .qos(MqttQos.AT_LEAST_ONCE)
          .send()
          .get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return AuditAnchor.parse(anchor.get(wait.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      throw new IllegalArgumentException(
          "no retained anchor on " + topic + " at " + where + " within " + wait.toSeconds() + " s");
    } catch (ExecutionException e) {
      if (ConnectionLoss.worthRetrying(e.getCause(), lostBefore, deadlineNanos)) {
        return take(broker, site, deadlineNanos, true);
      }
      throw new IllegalArgumentException(BrokerTls.describe(e.getCause(), where));
    } finally {
      client.disconnect();
    }
  }
}
