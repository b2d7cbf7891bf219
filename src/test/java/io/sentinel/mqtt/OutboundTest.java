package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The outgoing path never blocks who publishes: at most {@link Outbound#IN_CLIENT} publishes are
 * handed to the client at once (HiveMQ blocks the caller at 64), the rest wait in order, and past
 * the queue's bound a publish fails at once.
 */
class OutboundTest {
  @Test
  void atMost48InTheClient_theRestWaitInOrder_pastTheBoundRefused() throws Exception {
    Outbound out = new Outbound(100);
    List<Integer> handed = new ArrayList<>();
    List<CompletableFuture<Object>> inClient = new ArrayList<>();
    List<CompletableFuture<?>> done = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int n = i;
      done.add(
          out.send(
              () -> {
                CompletableFuture<Object> f = new CompletableFuture<>();
                synchronized (handed) {
                  handed.add(n);
                  inClient.add(f);
                }
                return f;
              }));
    }
    assertThat(handed).hasSize(Outbound.IN_CLIENT);
    assertThat(out.waiting()).isEqualTo(100);
    assertThat(out.refused()).isEqualTo(200 - Outbound.IN_CLIENT - 100);
    assertThat(done.get(199)).isCompletedExceptionally();

    // The broker acknowledges: each completion lets the next waiting one in, in order.
    for (int round = 0; round < 10 && out.waiting() > 0; round++) {
      List<CompletableFuture<Object>> now;
      synchronized (handed) {
        now = new ArrayList<>(inClient);
      }
      now.forEach(f -> f.complete("ack"));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < until) {
        synchronized (handed) {
          if (handed.size()
              >= Math.min(Outbound.IN_CLIENT + 100, now.size() + Outbound.IN_CLIENT)) {
            break;
          }
        }
        Thread.sleep(5);
      }
    }
    synchronized (handed) {
      inClient.forEach(f -> f.complete("ack"));
      assertThat(handed).hasSize(Outbound.IN_CLIENT + 100);
      for (int i = 0; i < handed.size(); i++) {
        assertThat(handed.get(i)).isEqualTo(i);
      }
    }
    for (int i = 0; i < Outbound.IN_CLIENT + 100; i++) {
      assertThat(done.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("ack");
    }
    out.close();
  }

  @Test
  void aPublishThatFailsAtOnce_makesRoomWithoutRecursing() throws Exception {
    Outbound out = new Outbound(20_000);
    List<CompletableFuture<?>> done = new ArrayList<>();
    CompletableFuture<Object> held = new CompletableFuture<>();
    for (int i = 0; i < Outbound.IN_CLIENT; i++) {
      done.add(out.send(() -> held));
    }
    for (int i = 0; i < 10_000; i++) {
      done.add(out.send(() -> CompletableFuture.failedFuture(new IllegalStateException("gone"))));
    }
    held.complete("ack");
    for (CompletableFuture<?> f : done) {
      try {
        f.get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(e.getCause()).hasMessage("gone");
      }
    }
    assertThat(out.waiting()).isZero();
    out.close();
  }

  @Test
  void close_failsWhatStillWaits_andALateAcknowledgementIsHarmless() {
    Outbound out = new Outbound(100);
    CompletableFuture<Object> held = new CompletableFuture<>();
    for (int i = 0; i < Outbound.IN_CLIENT; i++) {
      out.send(() -> held);
    }
    CompletableFuture<?> waiting = out.send(() -> CompletableFuture.completedFuture("sent"));
    out.close();
    assertThat(waiting).isCompletedExceptionally();
    assertThat(out.waiting()).isZero();
    held.complete("ack"); // the pump is gone: nothing is handed on, nothing thrown
    assertThat(out.waiting()).isZero();
  }
}
