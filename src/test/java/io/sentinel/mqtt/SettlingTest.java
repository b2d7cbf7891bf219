package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SettlingTest {
  @Test
  void anAcknowledgement_countsUntilTheTaskQueuedBehindItHasRun() {
    List<Runnable> clientLoop = new ArrayList<>();
    Settling settling = new Settling();
    settling.queueWith(clientLoop::add);
    AtomicInteger settledChecks = new AtomicInteger();
    settling.onSettled(settledChecks::incrementAndGet);
    AtomicInteger acknowledged = new AtomicInteger();

    settling.counting(acknowledged::incrementAndGet).run();
    settling.counting(acknowledged::incrementAndGet).run();

    assertThat(acknowledged).hasValue(2);
    assertThat(settling.unsettled()).isEqualTo(2);
    clientLoop.remove(0).run();
    assertThat(settling.unsettled()).isEqualTo(1);
    clientLoop.remove(0).run();
    assertThat(settling.unsettled()).isZero();
    assertThat(settledChecks).hasValue(2);
  }

  @Test
  void aClientWithoutAnEventLoopToQueueOn_settlesAtOnce() {
    Settling settling = new Settling(); // as before queueWith, or a client that refuses the task

    settling.counting(() -> {}).run();

    assertThat(settling.unsettled()).isZero();
  }

  /**
   * The real client: while its event loop is busy, the acknowledgements the gateway gave stay
   * counted, because the client has not acted on them; once it runs again they settle.
   */
  @Test
  void withTheRealClient_acknowledgementsStayCountedWhileItsEventLoopIsBusy() throws Exception {
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      List<Runnable> acks = new CopyOnWriteArrayList<>();
      String id = "settling-" + UUID.randomUUID().toString().substring(0, 8);
      MqttConnection gateway = EmbeddedSession.gateway(broker, id, acks);
      gateway.start();
      await().atMost(Duration.ofSeconds(10)).until(gateway::connected);
      Mqtt3BlockingClient device = EmbeddedSession.device(broker, id);
      try {
        EmbeddedSession.publish(device, id, 5);
        await().atMost(Duration.ofSeconds(10)).until(() -> acks.size() == 5);

        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        assertThat(
                ReadPause.behindClientTasks(gateway.clientConfig())
                    .test(
                        () -> {
                          busy.countDown();
                          await()
                              .atMost(Duration.ofSeconds(30))
                              .until(() -> release.getCount() == 0);
                        }))
            .isTrue();
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        acks.forEach(Runnable::run);

        assertThat(gateway.unsettled()).isEqualTo(5);
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.unsettled() == 0);
      } finally {
        device.disconnect();
        gateway.stop(Duration.ofSeconds(2));
      }
    }
  }
}
