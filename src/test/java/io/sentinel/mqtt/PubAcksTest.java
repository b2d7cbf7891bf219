package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The session's PUBACKs: run together on the connection's event loop, flushed together. */
class PubAcksTest {
  final DefaultEventLoop loop = new DefaultEventLoop();

  @AfterEach
  void close() {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  @Test
  void acknowledgementsRunTogether_inOrder_onceEach_onTheEventLoop() throws Exception {
    PubAcks acks = new PubAcks();
    acks.runOn(loop);
    List<Integer> ran = new CopyOnWriteArrayList<>();
    List<Boolean> onLoop = new CopyOnWriteArrayList<>();
    CountDownLatch hold = new CountDownLatch(1);
    loop.execute(() -> await(hold)); // the loop busy while a sync's acknowledgements are released
    for (int i = 0; i < 50; i++) {
      int n = i;
      acks.of(
              () -> {
                ran.add(n);
                onLoop.add(loop.inEventLoop());
              })
          .run();
    }
    assertThat(ran).isEmpty(); // queued, not run by the releasing thread
    hold.countDown();
    loop.submit(() -> {}).get(5, TimeUnit.SECONDS);
    assertThat(ran).hasSize(50).isSorted().doesNotHaveDuplicates();
    assertThat(onLoop).containsOnly(true);
    assertThat(acks.drains()).isEqualTo(1);
  }

  @Test
  void withoutAConnection_anAcknowledgementRunsAtOnce() {
    PubAcks acks = new PubAcks();
    AtomicInteger ran = new AtomicInteger();
    acks.of(ran::incrementAndGet).run();
    acks.runOn(loop);
    acks.disconnected();
    acks.of(ran::incrementAndGet).run();
    assertThat(ran).hasValue(2);
    assertThat(acks.drains()).isZero();
  }

  @Test
  void whatALostConnectionLeftQueued_runsOnTheNextOne() throws Exception {
    PubAcks acks = new PubAcks();
    DefaultEventLoop stuck = new DefaultEventLoop();
    CountDownLatch never = new CountDownLatch(1);
    try {
      stuck.execute(() -> await(never));
      acks.runOn(stuck);
      AtomicInteger ran = new AtomicInteger();
      acks.of(ran::incrementAndGet).run();
      acks.disconnected();
      acks.runOn(loop);
      acks.of(ran::incrementAndGet).run();
      loop.submit(() -> {}).get(5, TimeUnit.SECONDS);
      assertThat(ran).hasValue(2);
    } finally {
      never.countDown();
      stuck.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
