package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example site (the repository root) in a real gateway against a real broker: a device
 * publishes samples, the test receives the commands. The steps build on each other, in order, on
 * one gateway.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "example")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExampleSiteGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @TestHTTPResource("/q/metrics")
  URI metrics;

  @TestHTTPResource("/q/health/ready")
  URI ready;

  @Test
  @Order(1)
  void start_failSafeInterlockCommandsTheBurnerOff_beforeAnyInputIsLive() {
    JsonObject burner = awaitCommand("boiler.ch1.burner", 1);
    assertThat(burner.getValue("value")).isEqualTo(false);
    assertThat(burner.getString("band")).isEqualTo("interlock");
    assertThat(burner.getString("rule")).isEqualTo("boiler-overheat-cutoff");
    assertThat(burner.getString("command_id")).startsWith("boiler.ch1.burner/").endsWith("/1");
    assertThat(burner.getString("kind")).isEqualTo("assert");

    JsonObject claims = awaitLast("claims/boiler.ch1.burner");
    assertThat(claims.getJsonObject("winner").getString("rule"))
        .isEqualTo("boiler-overheat-cutoff");
    assertThat(claims.getString("deciding_key")).isEqualTo("sole");
    assertThat(awaitLast("status").getString("state")).isEqualTo("online");
  }

  @Test
  @Order(2)
  void warmup_oneInputLive_noAutomationCommandUntilEveryInputIsLive() {
    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42, \"linkquality\": 120}");
    Instant demandAt = Instant.now();
    device().publish(broker.topic("points/boiler.ch1.demand"), "false");

    JsonObject pump = awaitCommand("boiler.ch1.pump", 1);
    assertThat(pump.getValue("value")).isEqualTo(true);
    assertThat(pump.getString("rule")).isEqualTo("pump-run-on");
    assertThat(Instant.parse(pump.getString("ts"))).isAfterOrEqualTo(demandAt.minusMillis(50));
    assertThat(events("warmup-left")).anyMatch(e -> e.getString("subject").equals("pump-run-on"));
  }

  @Test
  @Order(3)
  void release_flowCools_pumpGoesToItsReleaseValue() {
    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 30}");

    JsonObject pump = awaitCommand("boiler.ch1.pump", 2);
    assertThat(pump.getValue("value")).isEqualTo(false);
    assertThat(pump.getString("kind")).isEqualTo("release");
    assertThat(pump.getValue("rule")).isNull();
  }

  @Test
  @Order(4)
  void interlock_releasesOnlyOnceEveryInputIsLiveAndClear_thenTheBurnerFollowsDemand() {
    device().publish(broker.topic("points/boiler.ch1.demand"), "true");
    device()
        .publish(
            broker.topic("points/boiler.ch1.pressure"), "{\"value\": 1500, \"unit\": \"mbar\"}");

    JsonObject burner = awaitCommand("boiler.ch1.burner", 2);
    assertThat(burner.getValue("value")).isEqualTo(true);
    assertThat(burner.getString("rule")).isEqualTo("burner-on-demand");
    assertThat(burner.getString("band")).isEqualTo("automation");
  }

  @Test
  @Order(5)
  void interlock_overTemperature_cutsTheBurnerAtOnceAndNotifies() {
    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 96}");

    JsonObject burner = awaitCommand("boiler.ch1.burner", 3);
    assertThat(burner.getValue("value")).isEqualTo(false);
    assertThat(burner.getString("band")).isEqualTo("interlock");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events("notify"))
                    .extracting(e -> e.getString("message"))
                    .contains("Boiler cut-off: flow 96 degC, pressure 1.5 bar"));
    JsonObject claims = awaitLast("claims/boiler.ch1.burner");
    assertThat(claims.getJsonArray("contenders")).hasSize(2);
    assertThat(claims.getString("deciding_key")).isEqualTo("band");
  }

  @Test
  @Order(6)
  void pulse_buttonPressed_strikeOnThenOffAfterItsDuration() {
    device().publish(broker.topic("points/door.main.lockdown"), "false");
    device().publish(broker.topic("points/door.main.button"), "false");
    device().publish(broker.topic("points/door.main.button"), "true");

    JsonObject on = awaitCommand("door.main.strike", 1);
    JsonObject off = awaitCommand("door.main.strike", 2);
    assertThat(on.getString("kind")).isEqualTo("pulse-on");
    assertThat(off.getString("kind")).isEqualTo("pulse-off");
    assertThat(off.getValue("value")).isEqualTo(false);
    assertThat(
            Duration.between(Instant.parse(on.getString("ts")), Instant.parse(off.getString("ts"))))
        .isBetween(Duration.ofMillis(2990), Duration.ofMillis(3500));
  }

  @Test
  @Order(7)
  void badPayload_rejectedCountedAndReported_pointUnchanged() throws Exception {
    device().publish(broker.topic("points/boiler.ch1.pressure"), "{\"value\": \"hot\"}");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events("ingest-rejected"))
                    .anyMatch(e -> e.getString("reason").equals("wrong-type")));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(Http.get(metrics))
                    .contains("sentinel_ingest_rejected_total{reason=\"wrong-type\"} 1.0"));
    assertThat(Http.get(ready)).contains("\"status\": \"UP\"");
  }

  @Test
  @Order(8)
  void derivedPoint_isComputedHere_aSampleForItFromOutsideIsRejected() {
    device().publish(broker.topic("points/door.main.left-open"), "true");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(Http.get(metrics))
                    // Issue 17: counted under a reason of its own (was unknown-point).
                    .contains("sentinel_ingest_rejected_total{reason=\"derived-point\"} 1.0"));
  }

  @Test
  @Order(9)
  void everyAcknowledgement_isSettledByTheClient_whenTheGatewayIsIdle() {
    // Issue 24: the intake bound counts acknowledgements until the MQTT client has acted on them
    // (mqtt.Settling); with nothing in flight, none is left.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(Http.get(metrics))
                    .contains("# HELP sentinel_ingest_unsettled MQTT messages the gateway")
                    .contains("sentinel_ingest_unsettled 0.0"));
  }

  private BrokerClient device;

  private BrokerClient device() {
    if (device == null) {
      device = broker.client("device");
    }
    return device;
  }

  private JsonObject awaitCommand(String point, int nth) {
    String topic = broker.topic("commands/" + point);
    await().atMost(WAIT).until(() -> broker.recorder().on(topic).size() >= nth);
    return broker.recorder().on(topic).get(nth - 1).json();
  }

  private JsonObject awaitLast(String rest) {
    String topic = broker.topic(rest);
    await().atMost(WAIT).until(() -> broker.recorder().last(topic).isPresent());
    return broker.recorder().last(topic).orElseThrow().json();
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }
}
