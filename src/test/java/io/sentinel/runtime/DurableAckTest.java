package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.CommandSettings;
import io.sentinel.command.PlaneOutput;
import io.sentinel.command.YamlRegistry;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A message's acknowledgement waits for the log's durable mark to pass the sequence number of the
 * pass that took its samples; the engine's passes never wait for it. The log here is a stand-in
 * whose durable mark the test moves by hand, telling the loop as the journal does.
 */
class DurableAckTest {
  private static final Duration WAIT = Duration.ofSeconds(5);

  private final Vertx vertx = Vertx.vertx();
  private final AtomicLong nextSeq = new AtomicLong(100);
  private final AtomicLong durable = new AtomicLong(0);
  private final AtomicInteger passes = new AtomicInteger();
  private final List<Long> recorded = new CopyOnWriteArrayList<>();
  private volatile boolean refuse;

  private final PassLog log =
      new PassLog() {
        @Override
        public long record(Instant now, List<Observation> observations, PassResult result) {
          passes.incrementAndGet();
          if (observations.isEmpty()) {
            return nextSeq.get() - 1;
          }
          if (refuse) {
            return -1;
          }
          long seq = nextSeq.addAndGet(observations.size()) - 1;
          recorded.add(seq);
          return seq;
        }

        @Override
        public long durableSeq() {
          return durable.get();
        }

        @Override
        public void onDurable(Runnable moved) {
          durableMoved = moved;
        }
      };
  private volatile Runnable durableMoved;

  private final EngineLoop loop = loop();

  @AfterEach
  void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  @Test
  void message_isAcknowledged_onlyOnceItsPassIsDurable() {
    List<String> acked = new CopyOnWriteArrayList<>();
    loop.start();
    loop.offer(List.of(sample(40), sample(41)), "mqtt:t", Optional.empty(), () -> acked.add("a"));

    await().atMost(WAIT).until(() -> !recorded.isEmpty());
    long seq = recorded.get(0);
    assertThat(loop.unacknowledged()).isEqualTo(1);
    // Passes go on (the engine does not wait), the acknowledgement does.
    int passesBefore = passes.get();
    loop.offer(sample(42), "mqtt:u", Optional.empty());
    await().atMost(WAIT).until(() -> passes.get() > passesBefore);
    sleep(20);
    assertThat(acked).isEmpty();

    moveDurable(seq - 1);
    sleep(20);
    assertThat(acked).isEmpty();
    assertThat(loop.unacknowledged()).isEqualTo(1);

    // The journal's progress alone releases it: no pass needed.
    moveDurable(seq);
    await().atMost(WAIT).until(() -> acked.size() == 1);
    assertThat(loop.unacknowledged()).isZero();
    assertThat(loop.acknowledgedThrough()).isEqualTo(seq);
  }

  @Test
  void acknowledgements_followTheDurableMark_inOrder() {
    List<Integer> acked = new CopyOnWriteArrayList<>();
    loop.start();
    for (int i = 0; i < 3; i++) {
      int n = i;
      loop.offer(List.of(sample(40 + i)), "mqtt:t", Optional.empty(), () -> acked.add(n));
      int size = i + 1;
      await().atMost(WAIT).until(() -> recorded.size() == size);
    }
    assertThat(acked).isEmpty();
    moveDurable(recorded.get(1));
    await().atMost(WAIT).until(() -> acked.size() == 2);
    assertThat(acked).containsExactly(0, 1);
    moveDurable(recorded.get(2));
    await().atMost(WAIT).until(() -> acked.size() == 3);
    assertThat(acked).containsExactly(0, 1, 2);
  }

  @Test
  void messageWithNoSample_isAcknowledgedAtOnce() {
    List<String> acked = new CopyOnWriteArrayList<>();
    loop.offer(List.of(), "mqtt:t", Optional.empty(), () -> acked.add("rejected"));
    assertThat(acked).containsExactly("rejected");
    assertThat(loop.unacknowledged()).isZero();
  }

  @Test
  void passTheLogRefused_isAcknowledgedAtOnce_soThatLaterOnesAreNotHeldBack() {
    List<String> acked = new CopyOnWriteArrayList<>();
    refuse = true;
    loop.start();
    loop.offer(List.of(sample(40)), "mqtt:t", Optional.empty(), () -> acked.add("a"));
    await().atMost(WAIT).until(() -> acked.size() == 1);
    assertThat(loop.unacknowledged()).isZero();
  }

  @Test
  void aCleanStop_acknowledgesWhatBecameDurable_andNothingElse() {
    List<String> acked = new CopyOnWriteArrayList<>();
    loop.start();
    loop.offer(List.of(sample(40)), "mqtt:t", Optional.empty(), () -> acked.add("a"));
    await().atMost(WAIT).until(() -> recorded.size() == 1);
    loop.stop(() -> {}).join();
    loop.acknowledgeDurable().join();
    assertThat(acked).isEmpty();
    moveDurable(recorded.get(0));
    loop.acknowledgeDurable().join();
    assertThat(acked).containsExactly("a");
  }

  /** What the journal does when a batch is kept: moves its mark, then says so. */
  private void moveDurable(long seq) {
    durable.set(seq);
    durableMoved.run();
  }

  private EngineLoop loop() {
    RuleSet ruleSet =
        new RuleSet(
            YamlRegistry.of(
                """
                points:
                  t: { type: number, unit: degC, direction: in, range: [0, 120] }
                """),
            List.of());
    Instant start = Instant.now();
    return new EngineLoop(
        vertx,
        vertx.getOrCreateContext(),
        new Engine(ruleSet, start, StartMode.COLD),
        new CommandPlane(
            ruleSet,
            spec -> {
              throw new IllegalStateException("no outputs here");
            },
            CommandSettings.DEFAULT,
            "boot"),
        InstantSource.system(),
        Duration.ofSeconds(2),
        new Outputs() {
          @Override
          public void passed(Instant now, PassResult result, PlaneOutput plane, int samples) {}

          @Override
          public void planeReported(PlaneOutput plane) {}
        },
        log);
  }

  private static Sample sample(int value) {
    return Sample.live("t", Value.of(value), Instant.now());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
