package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.passlog.Observation;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, isolation at the engine's own inbox: samples no door would let through (an unknown
 * point, a number for a bool, a string for a number) offered in one burst with good ones are each
 * refused alone (the gateway counts them as invalid-sample, SEN-101), never logged; every good one
 * of the burst is taken and logged, and the loop keeps running.
 */
class EngineLoopAdmissionTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  @Test
  void aSampleThePassCannotHold_costsOnlyItself() throws Exception {
    List<Observation> logged = new CopyOnWriteArrayList<>();
    AtomicBoolean failed = new AtomicBoolean();
    EngineLoop loop =
        EngineLoopFatalTest.loopOver(
            vertx,
            "points:\n  a: { type: bool, direction: in }\n  n: { type: number, direction: in }\n",
            (now, observations, result) -> {
              logged.addAll(observations);
              return -1;
            });
    InstantSource clock = InstantSource.system();
    Map<String, String> refused = new ConcurrentHashMap<>();
    loop.onRefused((sample, why) -> refused.put(sample.pointId() + "=" + sample.value(), why));
    loop.onFatal(e -> failed.set(true));
    loop.start();

    Instant t = clock.instant();
    // One message's worth, in one pass: good, bad, good, bad, bad, good.
    loop.offer(
        List.of(
            Sample.live("a", Value.TRUE, t),
            Sample.live("nope", Value.TRUE, t),
            Sample.live("n", Value.of(1.5), t),
            Sample.live("a", Value.of(3.0), t),
            Sample.live("n", Value.of("text"), t),
            Sample.live("a", Value.FALSE, t)),
        "mqtt:test",
        Optional.empty(),
        () -> {});

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(logged).extracting(Observation::pointId).contains("a", "n", "a"));
    assertThat(refused).hasSize(3);
    assertThat(refused.values())
        .anySatisfy(w -> assertThat(w).contains("unknown point nope"))
        .anySatisfy(w -> assertThat(w).contains("point a is"))
        .anySatisfy(w -> assertThat(w).contains("point n is"));
    assertThat(logged)
        .extracting(o -> o.pointId() + "=" + o.value())
        .containsExactly("a=" + Value.TRUE, "n=" + Value.of(1.5), "a=" + Value.FALSE);
    assertThat(failed).isFalse();
    // And the loop takes the next message as ever.
    loop.offer(
        List.of(Sample.live("n", Value.of(2.5), clock.instant())),
        "mqtt:test",
        Optional.empty(),
        () -> {});
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> logged.stream().anyMatch(o -> o.value().equals(Value.of(2.5))));
  }
}
