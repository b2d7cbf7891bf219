package io.sentinel.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.sentinel.site.Site;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, bounded cost of {@code rules:validate}: two checks at once at most (a third is a 503 at
 * once, nothing queued in memory), and a check that takes longer than the time limit is a 503
 * naming it, its slot given back. The check is held by a site that answers only when the test lets
 * it: the real RuleValidation, Bodies and ApiToken around it.
 */
class RuleValidationLimitsTest {
  static final Site EXAMPLE = Site.load(Path.of(".")).site().orElseThrow();
  static final byte[] RULES =
      Site.read(Path.of("rules/boiler.yaml")).getBytes(StandardCharsets.UTF_8);

  @Test
  void twoChecksAtOnce_aThirdIsBusy_andOneOverTheTimeLimitIsA503() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(2);
    GatewayAccess slow =
        new GatewayAccess() {
          @Override
          Site site() {
            entered.countDown();
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return EXAMPLE;
          }
        };
    RuleValidation v = new RuleValidation();
    v.access = slow;
    v.bodies = new Bodies();
    v.bodies.access = slow;
    v.token = new ApiToken();

    // Two threads of the test's own (the common pool may have one thread on two cores).
    ExecutorService clients = Executors.newFixedThreadPool(2);
    long t0 = System.nanoTime();
    CompletableFuture<Throwable> first = CompletableFuture.supplyAsync(() -> outcome(v), clients);
    CompletableFuture<Throwable> second = CompletableFuture.supplyAsync(() -> outcome(v), clients);
    assertThat(entered.await(10, TimeUnit.SECONDS)).as("both checks under way").isTrue();
    ApiError busy = catchThrowableOfType(() -> v.validate(null, null, null, RULES), ApiError.class);
    assertThat(busy.status()).isEqualTo(503);
    assertThat(busy.getMessage()).contains("busy");

    for (Throwable t :
        new Throwable[] {first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS)}) {
      assertThat(t).isInstanceOf(ApiError.class);
      assertThat(((ApiError) t).status()).isEqualTo(503);
      assertThat(t.getMessage())
          .contains("longer than " + RuleValidation.TIME_LIMIT.toSeconds() + " s");
    }
    assertThat(System.nanoTime() - t0)
        .isGreaterThanOrEqualTo(RuleValidation.TIME_LIMIT.toNanos())
        .isLessThan(RuleValidation.TIME_LIMIT.toNanos() + 15_000_000_000L);

    // The timed-out checks were cancelled (interrupted); each keeps its slot until it has really
    // stopped (so the bound holds past a time-out), then gives it back.
    release.countDown();
    await()
        .atMost(java.time.Duration.ofSeconds(20))
        .ignoreExceptionsInstanceOf(ApiError.class)
        .untilAsserted(
            () ->
                assertThat(v.validate("boiler.yaml", "application/yaml", null, RULES).getStatus())
                    .isEqualTo(200));
    clients.shutdown();
  }

  private static Throwable outcome(RuleValidation v) {
    try {
      v.validate(null, null, null, RULES);
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
