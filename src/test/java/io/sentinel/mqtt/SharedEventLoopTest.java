package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SharedEventLoopTest {
  /** A group of the kind of channel the HiveMQ client opens on this machine. */
  private static EventLoopGroup clientsKind() {
    return Epoll.isAvailable() ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
  }

  @Test
  void theClientReadsAndAcknowledgesOnTheSharedLoop_andLeavesItRunningWhenItStops()
      throws Exception {
    EventLoopGroup group = clientsKind();
    EventLoop loop = group.next();
    Optional<Executor> shared = SharedEventLoop.of(loop);
    assertThat(shared).isPresent();
    List<Boolean> onLoop = new CopyOnWriteArrayList<>();
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      String id = "shared-" + UUID.randomUUID().toString().substring(0, 8);
      MqttConnection gateway =
          EmbeddedSession.gateway(
              broker,
              id,
              (topic, payload, delivery, ack) -> {
                onLoop.add(loop.inEventLoop());
                ack.run();
              },
              shared);
      gateway.start();
      await().atMost(Duration.ofSeconds(10)).until(gateway::connected);
      Mqtt3BlockingClient device = EmbeddedSession.device(broker, id);
      try {
        EmbeddedSession.publish(device, id, 20);
        await().atMost(Duration.ofSeconds(10)).until(() -> onLoop.size() == 20);
        assertThat(onLoop).containsOnly(true);
        // Acknowledged on the loop: nothing waits in the client for the broker's window.
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.unsettled() == 0);
      } finally {
        device.disconnect();
        assertThat(gateway.stop(Duration.ofSeconds(5))).isTrue();
      }
      // The client released its group: the loop is not the client's to shut down.
      assertThat(loop.isShuttingDown()).isFalse();
      assertThat(loop.submit(() -> "still runs").get(5, TimeUnit.SECONDS)).isEqualTo("still runs");
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLoopOfAnotherKindThanTheClientsChannel_isNotShared() {
    assumeThat(Epoll.isAvailable()).as("epoll loads here (Linux, x86-64 or arm64)").isTrue();
    EventLoopGroup nio = new NioEventLoopGroup(1);
    try {
      // HiveMQ opens an epoll channel wherever epoll loads: it cannot register on a NIO loop.
      assertThat(SharedEventLoop.of(nio.next())).isEmpty();
    } finally {
      nio.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
