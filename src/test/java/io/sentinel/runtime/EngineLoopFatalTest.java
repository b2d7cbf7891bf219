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
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An Error in a pass is the engine lost for good: the loop says so once and takes no more pass. */
class EngineLoopFatalTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  @Test
  void errorInAPass_fatalHandlerHearsIt_noFurtherPass() throws Exception {
    AtomicInteger passes = new AtomicInteger();
    EngineLoop loop = failingAtSecondPass(vertx, passes);
    InstantSource clock = InstantSource.system();
    CompletableFuture<Throwable> fatal = new CompletableFuture<>();
    loop.onFatal(fatal::complete);
    loop.start();
    await().until(() -> passes.get() == 1);

    loop.offer(Sample.live("a", Value.TRUE, clock.instant()), "test", Optional.empty());

    assertThat(fatal.get()).isInstanceOf(StackOverflowError.class);
    loop.offer(Sample.live("a", Value.FALSE, clock.instant()), "test", Optional.empty());
    Thread.sleep(200);
    assertThat(passes.get()).isEqualTo(2);
  }

  /** A loop over one bool input {@code a} whose second pass throws an Error; counts passes. */
  static EngineLoop failingAtSecondPass(Vertx vertx, AtomicInteger passes) {
    return loopOver(
        vertx,
        "points:\n  a: { type: bool, direction: in }\n",
        (now, observations, result) -> {
          if (passes.incrementAndGet() == 2) {
            throw new StackOverflowError("a rule set the engine could not evaluate");
          }
          return -1;
        });
  }

  /** An engine loop over the registry of {@code pointsYaml} with no rule, handing passes to log. */
  static EngineLoop loopOver(Vertx vertx, String pointsYaml, PassLog log) {
    RuleSet ruleSet = new RuleSet(YamlRegistry.of(pointsYaml), List.of());
    InstantSource clock = InstantSource.system();
    Engine engine = new Engine(ruleSet, clock.instant(), StartMode.COLD);
    CommandPlane plane = new CommandPlane(ruleSet, spec -> null, CommandSettings.DEFAULT, "t");
    return new EngineLoop(
        vertx,
        vertx.getOrCreateContext(),
        engine,
        plane,
        clock,
        Duration.ofSeconds(2),
        new Outputs() {
          @Override
          public void passed(Instant now, PassResult result, PlaneOutput out, int samples) {}

          @Override
          public void planeReported(PlaneOutput plane) {}
        },
        log);
  }
}
