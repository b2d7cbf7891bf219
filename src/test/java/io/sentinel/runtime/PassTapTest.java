package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.smallrye.mutiny.subscription.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The live feed the page's server-sent events read: nothing is handed over while nobody listens, a
 * pass becomes one message per transition and event, and a reader that holds the feed up loses
 * messages and is told to read the state again, while the engine's side never waits.
 */
class PassTapTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private static PassResult pass(double v) {
    PointState before = new PointState(Value.of(v - 1), Quality.LIVE, T);
    PointState after = new PointState(Value.of(v), Quality.LIVE, T.plusMillis(1));
    return new PassResult(
        List.of(new Transition("boiler.ch1.flow-temp", before, after, true, false)),
        List.of(),
        List.of(),
        List.of(),
        List.of(new ControlEvent("warmup-left", "pump-run-on", "all inputs live", T)),
        List.of());
  }

  @Test
  void aPassBecomesAMessagePerTransitionAndEvent_onlyWhileSomeoneListens() {
    PassTap tap = new PassTap();
    tap.passed(T, pass(1)); // nobody listens: dropped at once
    assertThat(tap.listened()).isFalse();
    List<String> got = new CopyOnWriteArrayList<>();
    Cancellable c = tap.messages().subscribe().with(got::add);
    tap.passed(T, pass(42));
    await().atMost(Duration.ofSeconds(5)).until(() -> got.size() == 2);
    assertThat(got.get(0))
        .contains("\"type\":\"point\"")
        .contains("\"id\":\"boiler.ch1.flow-temp\"")
        .contains("\"value\":42");
    assertThat(got.get(1)).contains("\"type\":\"event\"").contains("warmup-left");
    c.cancel();
    assertThat(tap.listened()).isFalse();
    tap.close();
  }

  @Test
  void aReaderThatHoldsTheFeedUp_losesMessagesAndIsToldToResync_theEngineNeverWaits()
      throws Exception {
    PassTap tap = new PassTap();
    CountDownLatch release = new CountDownLatch(1);
    List<String> got = new CopyOnWriteArrayList<>();
    tap.messages()
        .subscribe()
        .with(
            m -> {
              try {
                release.await(10, TimeUnit.SECONDS); // a reader stuck on its first message
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              got.add(m);
            });
    long start = System.nanoTime();
    for (int i = 0; i < PassTap.MAX_PENDING * 4; i++) {
      tap.passed(T, pass(i));
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    release.countDown();
    tap.passed(T, pass(-1)); // the first pass handed over after the drop says resync
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> got.stream().anyMatch(m -> m.contains("\"type\":\"resync\"")));
    assertThat(got.size()).isLessThan(PassTap.MAX_PENDING * 4 * 2);
    tap.close();
  }
}
