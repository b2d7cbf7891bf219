package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.internal.mqtt.message.publish.MqttPublish;
import com.hivemq.client.internal.mqtt.message.publish.MqttStatefulPublish;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ClientBacklogTest {
  @Test
  void messagesTheClientDecoded_areCountedUntilHandedOver_andEachDecodeIsChecked()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<Runnable> acks = new CopyOnWriteArrayList<>();
    AtomicInteger checks = new AtomicInteger();
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      String id = "backlog-" + UUID.randomUUID().toString().substring(0, 8);
      MqttConnection gateway =
          EmbeddedSession.gateway(
              broker,
              id,
              (topic, payload, delivery, ack) -> {
                acks.add(ack);
                // The gateway slower than the client's reads: the first message holds the
                // hand-overs back while the client goes on reading and decoding.
                awaitQuietly(release);
                ack.run();
              },
              Optional.empty());
      gateway.onDecoded(checks::incrementAndGet);
      gateway.start();
      await().atMost(Duration.ofSeconds(10)).until(gateway::connected);
      Mqtt3BlockingClient device = EmbeddedSession.device(broker, id);
      try {
        EmbeddedSession.publish(device, id, 20);
        // The broker's window for this session (the embedded broker's: 10 in flight) is decoded
        // while the first message is still being handed over.
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.undelivered() >= 5);
        assertThat(acks).hasSize(1);
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> acks.size() == 20);
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.undelivered() == 0);
        assertThat(checks.get()).isGreaterThanOrEqualTo(20);
      } finally {
        release.countDown();
        device.disconnect();
        assertThat(gateway.stop(Duration.ofSeconds(5))).isTrue();
      }
    }
  }

  @Test
  void aMessageSentAgain_orAHandOverAtZero_neverRaisesTheCount() {
    ClientBacklog backlog = new ClientBacklog();
    AtomicInteger checks = new AtomicInteger();
    backlog.onArrived(checks::incrementAndGet);
    EmbeddedChannel channel = new EmbeddedChannel(backlog.counting());
    channel.writeInbound(publish(1, false));
    channel.writeInbound(publish(2, false));
    // The client drops a resend whose first sending it still holds: never handed over.
    channel.writeInbound(publish(2, true));
    assertThat(backlog.waiting()).isEqualTo(2);
    assertThat(checks.get()).isEqualTo(2);
    // Every message goes on down the pipeline to the client, counted or not.
    assertThat(channel.inboundMessages()).hasSize(3);
    backlog.handedOver();
    backlog.handedOver();
    // A hand-over of a message not counted (a resend the client delivered after all).
    backlog.handedOver();
    assertThat(backlog.waiting()).isZero();
    channel.writeInbound(publish(3, false));
    assertThat(backlog.waiting()).isEqualTo(1);
    channel.finishAndReleaseAll();
  }

  private static MqttStatefulPublish publish(int packetId, boolean dup) {
    return ((MqttPublish) Mqtt5Publish.builder().topic("t").qos(MqttQos.AT_LEAST_ONCE).build())
        .createStateful(packetId, dup, 0, MqttStatefulPublish.DEFAULT_NO_SUBSCRIPTION_IDENTIFIERS);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
