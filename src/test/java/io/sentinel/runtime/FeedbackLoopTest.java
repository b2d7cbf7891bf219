package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Seed 000, "Loop and flap protection": a pump whose running raises its own flow temperature and a
 * rule without hysteresis form a real loop through the broker; the evaluation limit suspends the
 * rule. The site's limits are lowered (100 evaluations per 10 s, the claim-change limit out of the
 * way) so that the evaluation limit is the one that trips, within seconds.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/pump-loop"),
      @ResourceArg(name = "site-prefix", value = "loop"),
      @ResourceArg(name = "sentinel.limits.evaluations-per-rule", value = "100"),
      @ResourceArg(name = "sentinel.limits.evaluation-window", value = "10s"),
      @ResourceArg(name = "sentinel.limits.claim-changes-per-point", value = "100000")
    })
class FeedbackLoopTest {
  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Test
  void feedbackLoop_pumpRaisesItsOwnFlowTemperature_ruleSuspendedByTheEvaluationLimit() {
    BrokerClient pump = broker.client("pump").subscribe(broker.topic("commands/loop.pump"));
    AtomicBoolean running = new AtomicBoolean();
    pump.onMessage(r -> running.set(Boolean.TRUE.equals(r.json().getValue("value"))));
    double[] flow = {30};
    ScheduledExecutorService simulator = Executors.newSingleThreadScheduledExecutor();
    // The pump heats the flow by a degree per 20 ms tick while it runs; the flow cools otherwise.
    simulator.scheduleAtFixedRate(
        () -> {
          flow[0] += running.get() ? 1 : -1;
          pump.publishAsync(
              broker.topic("points/loop.flow-temp"),
              Double.toString(flow[0]).getBytes(StandardCharsets.UTF_8),
              false);
        },
        0,
        20,
        TimeUnit.MILLISECONDS);
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> !events("rule-suspended").isEmpty());
    } finally {
      simulator.shutdownNow();
      pump.close();
    }

    JsonObject suspended = events("rule-suspended").get(0);
    assertThat(suspended.getString("subject")).isEqualTo("pump-while-cool");
    assertThat(suspended.getString("message")).contains("more than 100 evaluations");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        broker
                            .recorder()
                            .last(broker.topic("self/rule.pump-while-cool.suspended"))
                            .map(r -> r.json().getValue("value")))
                    .contains(true));
    List<JsonObject> commands = commands();
    assertThat(commands.size()).as("the loop really ran").isGreaterThan(10);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonObject last = commands().get(commands().size() - 1);
              assertThat(last.getString("kind")).isEqualTo("release");
              assertThat(last.getValue("value")).isEqualTo(false);
            });
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private List<JsonObject> commands() {
    return broker.recorder().on(broker.topic("commands/loop.pump")).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }
}
