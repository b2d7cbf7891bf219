package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.engine.RuleState;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example site in a real gateway that logs to a real PostgreSQL (the machine's, else an
 * embedded one; a database of this class's own): what a device publishes is in the observations
 * table in order, and a restart of the gateway starts from what the store kept. Seed 000: restored
 * values command nothing until inputs are live again; the fail-safe interlock asserts at once.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "store")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayStoreTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String FLOW = "boiler.ch1.flow-temp";

  /**
   * Fed on the gateway's own topic (the flow temperature takes only its mapped topic); read by no
   * rule that commands anything here.
   */
  private static final String LOCKDOWN = "door.main.lockdown";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Inject io.micrometer.core.instrument.MeterRegistry meters;

  private BrokerClient device;

  @Test
  @Order(1)
  void samples_areInTheObservationsTable_inTheOrderPublished_withTopicAndDeviceTime() {
    awaitCommands("boiler.ch1.burner", 1);
    // Issue 17: a mapped point takes only its mapped topic, so the ordered samples with a device
    // time go to the lockdown switch, on the gateway's own topic, and the flow to zigbee2mqtt.
    device().publish(broker.topic("points/" + LOCKDOWN), "false");
    device().publish(broker.topic("points/" + LOCKDOWN), "true");
    device()
        .publish(
            broker.topic("points/" + LOCKDOWN),
            "{\"value\": false, \"ts\": \"2026-11-30T06:00:00Z\"}");
    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    device().publish(broker.topic("points/boiler.ch1.demand"), "false");

    // Flow hot, demand ended: the pump runs on (every input of pump-run-on is live).
    JsonObject pump = awaitCommands("boiler.ch1.pump", 1).get(0).json();
    assertThat(pump.getValue("value")).isEqualTo(true);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        db().rows(
                                "SELECT value::text, source, observed_at IS NOT NULL"
                                    + " FROM observations WHERE point_id = '"
                                    + LOCKDOWN
                                    + "' ORDER BY seq"))
                    .containsExactly(
                        List.of("false", "mqtt:" + broker.topic("points/" + LOCKDOWN), "f"),
                        List.of("true", "mqtt:" + broker.topic("points/" + LOCKDOWN), "f"),
                        List.of("false", "mqtt:" + broker.topic("points/" + LOCKDOWN), "t")));
    assertThat(
            db().longs(
                    "SELECT extract(epoch FROM observed_at)::bigint FROM observations"
                        + " WHERE observed_at IS NOT NULL"))
        .containsExactly(java.time.Instant.parse("2026-11-30T06:00:00Z").getEpochSecond());
    // What the gateway did is in the log too: its revision, decisions, and the commands it sent.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(db().rows("SELECT point_id, kind, rule_id FROM commands ORDER BY seq"))
                    .containsExactly(
                        List.of("boiler.ch1.burner", "assert", "boiler-overheat-cutoff"),
                        List.of("boiler.ch1.pump", "assert", "pump-run-on")));
    await()
        .atMost(WAIT)
        .until(
            () -> db().count("SELECT count(*) FROM command_states WHERE state = 'delivered'") == 2);
    assertThat(db().count("SELECT count(*) FROM ruleset_revisions WHERE state = 'active'"))
        .isEqualTo(1);
    assertThat(db().count("SELECT count(*) FROM decisions WHERE point_id = 'boiler.ch1.pump'"))
        .isEqualTo(1);
  }

  @Test
  @Order(2)
  void restart_restoresValues_commandsNothingOnThem_butTheInterlockAssertsAtOnce()
      throws Exception {
    int burnerBefore = broker.recorder().on(broker.topic("commands/boiler.ch1.burner")).size();
    int pumpBefore = broker.recorder().on(broker.topic("commands/boiler.ch1.pump")).size();
    long lastSeqBefore = db().count("SELECT coalesce(max(seq), 0) FROM decisions");

    gateway.restart();

    // The fail-safe interlock's protective value goes out at once, under the new boot's ids.
    JsonObject burner =
        awaitCommands("boiler.ch1.burner", burnerBefore + 1).get(burnerBefore).json();
    assertThat(burner.getValue("value")).isEqualTo(false);
    assertThat(burner.getString("rule")).isEqualTo("boiler-overheat-cutoff");
    assertThat(burner.getString("band")).isEqualTo("interlock");

    // The last values are back, as restored: no rule counts them as live.
    PointState flow = inspect(e -> e.points().state(FLOW).orElseThrow());
    assertThat(flow.value()).isEqualTo(Value.of(42));
    assertThat(flow.quality()).isEqualTo(Quality.RESTORED);
    assertThat(pumpRuleState()).isEqualTo(RuleState.WARMUP);
    // The first pass decided the burner and nothing else, though the restored flow is hot and the
    // restored demand ended (live, they would run the pump on).
    await()
        .atMost(WAIT)
        .until(
            () ->
                db().count(
                            "SELECT count(*) FROM decisions WHERE seq > "
                                + lastSeqBefore
                                + " AND point_id = 'boiler.ch1.burner'")
                    == 1);
    assertThat(
            db().count(
                    "SELECT count(*) FROM decisions WHERE seq > "
                        + lastSeqBefore
                        + " AND point_id <> 'boiler.ch1.burner'"))
        .isZero();

    // One input live again: still nothing from the pump rule.
    device().publish(broker.topic("points/boiler.ch1.demand"), "false");
    await()
        .atMost(WAIT)
        .until(
            () ->
                inspect(e -> e.points().state("boiler.ch1.demand").orElseThrow().quality())
                    == Quality.LIVE);
    assertThat(pumpRuleState()).isEqualTo(RuleState.WARMUP);
    assertThat(broker.recorder().on(broker.topic("commands/boiler.ch1.pump"))).hasSize(pumpBefore);

    // Every input live: the pump rule decides on live readings.
    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 43}");
    JsonObject pump = awaitCommands("boiler.ch1.pump", pumpBefore + 1).get(pumpBefore).json();
    assertThat(pump.getValue("value")).isEqualTo(true);
    assertThat(pump.getString("rule")).isEqualTo("pump-run-on");
  }

  @Test
  @Order(3)
  void aSample_isAcknowledgedToTheBroker_onlyOnceItsPassIsDurableInTheJournal() {
    await().atMost(WAIT).until(() -> gateway.unacknowledged() == 0);
    long before = gateway.loop().acknowledgedThrough();
    device().publish(broker.topic("points/" + LOCKDOWN), "true");

    await()
        .atMost(WAIT)
        .until(
            () -> gateway.loop().acknowledgedThrough() > before && gateway.unacknowledged() == 0);
    long acknowledgedThrough = gateway.loop().acknowledgedThrough();
    // Acknowledged means durable: the sample's row is in PostgreSQL already (no waiting here), at a
    // sequence number the journal's durable mark had passed when the acknowledgement went out.
    long seq =
        db().count(
                "SELECT coalesce(max(seq), 0) FROM observations WHERE point_id = '"
                    + LOCKDOWN
                    + "' AND value::text = 'true'");
    assertThat(seq).isPositive().isLessThanOrEqualTo(acknowledgedThrough);
    assertThat(meters.get("sentinel.ingest.unacknowledged").gauge().value()).isZero();
  }

  private RuleState pumpRuleState() throws Exception {
    return inspect(e -> e.status("pump-run-on").orElseThrow().state());
  }

  private TestDatabase db() {
    return broker.database();
  }

  private <T> T inspect(java.util.function.Function<io.sentinel.engine.Engine, T> query)
      throws Exception {
    return gateway.loop().inspectEngine(query).get(10, TimeUnit.SECONDS);
  }

  private BrokerClient device() {
    if (device == null) {
      device = broker.client("device");
    }
    return device;
  }

  private List<BrokerClient.Received> awaitCommands(String point, int atLeast) {
    String topic = broker.topic("commands/" + point);
    await().atMost(WAIT).until(() -> broker.recorder().on(topic).size() >= atLeast);
    return broker.recorder().on(topic);
  }
}
