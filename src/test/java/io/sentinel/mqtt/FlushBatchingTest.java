package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The gateway's connection batches its flushes once, and acknowledgements given together all reach
 * the broker, which then sends what it held back behind its window.
 */
class FlushBatchingTest {
  @Test
  void acknowledgementsGivenTogether_allReachTheBroker() throws Exception {
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      String id = "flush-" + UUID.randomUUID().toString().substring(0, 8);
      List<Runnable> acks = new CopyOnWriteArrayList<>();
      MqttConnection gateway = EmbeddedSession.gateway(broker, id, acks);
      gateway.start();
      await().atMost(Duration.ofSeconds(10)).until(gateway::connected);
      assertThat(ReadPause.channel(gateway.clientConfig()).pipeline().names())
          .filteredOn(FlushBatching.NAME::equals)
          .hasSize(1);
      assertThat(FlushBatching.install(gateway.clientConfig())).isTrue(); // again: still one
      assertThat(ReadPause.channel(gateway.clientConfig()).pipeline().names())
          .filteredOn(FlushBatching.NAME::equals)
          .hasSize(1);

      Mqtt3BlockingClient device = EmbeddedSession.device(broker, id);
      try {
        EmbeddedSession.publish(device, id, 30);
        // The broker sends at most its window (10 on the embedded broker) before it has their
        // PUBACKs: all 30 arrive only if the acknowledgements given together leave the gateway.
        int given = 0;
        while (given < 30) {
          int before = given;
          await().atMost(Duration.ofSeconds(10)).until(() -> acks.size() > before);
          List<Runnable> together = List.copyOf(acks.subList(given, acks.size()));
          together.forEach(Runnable::run);
          given += together.size();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.unsettled() == 0);
        assertThat(acks).hasSize(30);
      } finally {
        device.disconnect();
        gateway.stop(Duration.ofSeconds(2));
      }
    }
  }
}
