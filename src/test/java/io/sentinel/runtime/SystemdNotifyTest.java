package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sd_notify to a real Unix datagram socket: READY=1 after the engine's first pass, WATCHDOG=1 while
 * the engine's context turns over, nothing once the engine is lost.
 */
class SystemdNotifyTest {
  private final Vertx vertx = Vertx.vertx();
  @TempDir Path dir;

  @AfterEach
  void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  /** A notifier to {@code socket}, as systemd's environment with {@code WatchdogSec} gives it. */
  private static SystemdNotify notifier(NotifySocket socket, String watchdogUsec) {
    return SystemdNotify.fromEnvironment(
            Map.of("NOTIFY_SOCKET", socket.path.toString(), "WATCHDOG_USEC", watchdogUsec), 1)
        .orElseThrow();
  }

  @Test
  void environment_withoutNotifySocket_none_watchdogForThisPidOnly() {
    assertThat(SystemdNotify.fromEnvironment(Map.of(), 7)).isEmpty();
    assertThat(
            SystemdNotify.fromEnvironment(
                    Map.of("NOTIFY_SOCKET", "/run/x", "WATCHDOG_USEC", "20000000"), 7)
                .orElseThrow()
                .beatEvery())
        .contains(Duration.ofSeconds(10));
    assertThat(
            SystemdNotify.fromEnvironment(
                    Map.of(
                        "NOTIFY_SOCKET",
                        "/run/x",
                        "WATCHDOG_USEC",
                        "20000000",
                        "WATCHDOG_PID",
                        "8"),
                    7)
                .orElseThrow()
                .beatEvery())
        .isEmpty();
  }

  @Test
  void sockaddr_pathIsNulTerminated_abstractNameStartsWithNul() {
    byte[] path = SystemdNotify.sockaddrUn("/run/n");
    assertThat(path).hasSize(2 + 6 + 1);
    assertThat(path[path.length - 1]).isZero();
    byte[] abstractName = SystemdNotify.sockaddrUn("@n");
    assertThat(abstractName).hasSize(2 + 2);
    assertThat(abstractName[2]).isZero();
    assertThat(abstractName[3]).isEqualTo((byte) 'n');
  }

  @Test
  void beat_readyFirstThenWatchdog_stoppingAtTheEnd() throws Exception {
    try (NotifySocket socket = new NotifySocket(dir)) {
      SystemdNotify notify = notifier(socket, "1000000");

      notify.beat("site example, revision 1");
      notify.beat("ignored");
      notify.stopping();

      assertThat(socket.await(3, Duration.ofSeconds(10)))
          .containsExactly(
              "READY=1|STATUS=site example, revision 1",
              "WATCHDOG=1",
              "STOPPING=1|STATUS=stopping");
    }
  }

  @Test
  void engineLoop_aPassThatHangs_starvesTheWatchdog_untilItReturns() throws Exception {
    try (NotifySocket socket = new NotifySocket(dir)) {
      SystemdNotify notify = notifier(socket, "100000");
      EngineLoop loop = EngineLoopFatalTest.failingAtSecondPass(vertx, new AtomicInteger());
      loop.start();
      loop.heartbeat(notify.beatEvery(), () -> notify.beat("up"));
      socket.await(4, Duration.ofSeconds(20));
      java.util.concurrent.CountDownLatch hanging = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
      loop.onContext(
          () -> {
            hanging.countDown();
            try {
              Thread.sleep(2000); // a pass that hangs: forty beat periods
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            done.countDown();
            return io.sentinel.command.PlaneOutput.NONE;
          });
      assertThat(hanging.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      Thread.sleep(300); // a beat already handed to the socket may still arrive
      int before = socket.datagrams().size();
      Thread.sleep(1000);
      int after = socket.datagrams().size();
      assertThat(done.getCount()).as("still hanging when counted").isOne();
      assertThat(after).as("WATCHDOG=1 while the pass hangs").isEqualTo(before);
      // The beat comes back with the engine.
      assertThat(done.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      await().until(() -> socket.datagrams().size() > after + 3);
    }
  }

  @Test
  void engineLoop_readyAfterFirstPass_watchdogWhileRunning_silentOnceLost() throws Exception {
    try (NotifySocket socket = new NotifySocket(dir)) {
      SystemdNotify notify = notifier(socket, "100000");
      AtomicInteger passes = new AtomicInteger();
      AtomicInteger passesAtReady = new AtomicInteger(-1);
      EngineLoop loop = EngineLoopFatalTest.failingAtSecondPass(vertx, passes);
      loop.onFatal(e -> {});
      loop.start();
      loop.heartbeat(
          notify.beatEvery(),
          () -> {
            passesAtReady.compareAndSet(-1, passes.get());
            notify.beat("up");
          });

      List<String> beats = socket.await(4, Duration.ofSeconds(20));
      assertThat(passesAtReady.get()).as("passes made before READY=1").isEqualTo(1);
      assertThat(beats.get(0)).isEqualTo("READY=1|STATUS=up");
      assertThat(beats.subList(1, 4)).containsOnly("WATCHDOG=1");

      // An Error in a pass is the engine lost: the watchdog must starve, so systemd restarts it.
      loop.offer(Sample.live("a", Value.TRUE, Instant.now()), "test", Optional.empty());
      await().until(() -> passes.get() == 2);
      Thread.sleep(200); // a beat already queued on the context may still arrive
      int after = socket.datagrams().size();
      Thread.sleep(500); // ten beat periods
      assertThat(socket.datagrams()).hasSize(after);
    }
  }
}
