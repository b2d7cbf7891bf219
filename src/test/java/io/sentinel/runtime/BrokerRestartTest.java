package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.command.Command;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The broker stops and starts again mid-stream (an embedded Moquette on a free port: the shared
 * Mosquitto cannot be stopped safely). Commands are observed from the broker's side, re-sends
 * included: none may be lost, and a device may see one twice only under the same command_id.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/zones"),
      @ResourceArg(name = "site-prefix", value = "restart"),
      @ResourceArg(name = "embedded", value = "always"),
      // The test's own clients reconnect first: a command the gateway sends on its reconnect
      // must find the observer subscribed again (an in-memory broker forgets subscriptions).
      @ResourceArg(name = "sentinel.mqtt.reconnect-initial", value = "1s"),
      @ResourceArg(name = "sentinel.mqtt.reconnect-max", value = "2s"),
      @ResourceArg(name = "sentinel.command.interlock-bound", value = "1s")
    })
class BrokerRestartTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;
  @Inject Gateway gateway;

  /**
   * Runs in every build. It used to fail about two runs in three: after a restart the gateway's
   * burst on reconnect (status, retained state, events, the queued command) reached Moquette split
   * across reads, and Netty 4.1.133's MQTT decoder refused a PUBLISH whose header was not yet all
   * read ("message length exceeds 1048576", netty/netty#16776); the pom pins the fixed decoder.
   */
  @Test
  void brokerRestartsMidStream_noCommandLost_noneRepeatedUnderANewId() throws Exception {
    await().atMost(WAIT).until(gateway::connected);
    BrokerClient device = broker.client("device");
    device.publish(broker.topic("points/zone.1.temp"), "25");
    device.publish(broker.topic("points/zone.1.temp"), "31");
    awaitDistinct("zone.1.vent", 1);

    // A pulse starts; its end falls due while the broker is away and is sent after it is back.
    device.publish(broker.topic("points/door.button"), "false");
    device.publish(broker.topic("points/door.button"), "true");
    awaitDistinct("door.strike", 1);
    broker.stopEmbedded();
    await().atMost(WAIT).until(() -> !gateway.connected());
    await()
        .atMost(WAIT)
        .until(
            () ->
                gateway
                    .loop()
                    .inspect(p -> p.status("door.strike").orElseThrow().waiting().isPresent())
                    .get());
    assertThat(gateway.running()).isTrue();
    broker.startEmbedded();

    List<JsonObject> strike = awaitDistinct("door.strike", 2);
    assertThat(strike.get(1).getString("kind")).isEqualTo(Command.Kind.PULSE_OFF.wireName());
    await().atMost(WAIT).until(() -> gateway.connected() && device.connected());

    // Samples after the restart: the gateway subscribed again to the broker that lost its session.
    // Connected is not yet subscribed again, so the device reports until it is heard, as a
    // sensor's periodic report would; a repeated value is no transition and changes nothing.
    reportUntil(device, "25", () -> distinct("zone.1.vent").size() >= 2);

    // A second outage right behind a sample: whatever was in flight arrives after the restart.
    device.publish(broker.topic("points/zone.1.temp"), "32");
    broker.stopEmbedded();
    await().atMost(WAIT).until(() -> !gateway.connected());
    broker.startEmbedded();
    await().atMost(WAIT).until(() -> gateway.connected() && device.connected());
    reportUntil(device, "33", () -> distinct("zone.1.vent").size() >= 3);
    reportUntil(device, "24", () -> distinct("zone.1.vent").size() >= 4);

    List<JsonObject> vent = awaitDistinctValue("zone.1.vent", false, 4);
    assertThat(vent).extracting(c -> c.getValue("value")).containsExactly(true, false, true, false);
    assertThat(vent)
        .extracting(c -> c.getString("command_id").replaceAll(".*/", ""))
        .containsExactly("1", "2", "3", "4");
    device.close();
  }

  @Test
  void interlockSensorGoesQuietWhileTheBrokerIsAway_unenforcedEscalated_enforcedAfterRestart()
      throws Exception {
    await().atMost(WAIT).until(gateway::connected);
    BrokerClient device = broker.client("sensor");
    device.publish(broker.topic("points/zone.6.temp"), "20");
    List<JsonObject> heater = awaitDistinctValue("zone.6.heater", true, 2);
    assertThat(heater.get(0).getString("band")).isEqualTo("interlock");
    assertThat(heater.get(1).getString("kind")).isEqualTo("release");

    // No sample for 1 s: the sensor turns stale, the fail-safe asserts its value again, and the
    // command cannot leave while the broker is away: escalated after the 1 s bound.
    broker.stopEmbedded();
    await()
        .atMost(WAIT)
        .until(
            () ->
                gateway
                    .loop()
                    .inspect(p -> p.status("zone.6.heater").orElseThrow().interlockUnenforced())
                    .get());
    broker.startEmbedded();

    heater = awaitDistinctValue("zone.6.heater", false, 3);
    assertThat(heater.get(2).getString("band")).isEqualTo("interlock");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(broker.seenByBroker(broker.topic("events/interlock-unenforced")))
                  .hasSize(1);
              assertThat(broker.seenByBroker(broker.topic("events/interlock-enforced"))).hasSize(1);
              List<BrokerClient.Received> self =
                  broker.seenByBroker(
                      broker.topic("self/point.zone.6.heater.interlock-unenforced"));
              assertThat(self).isNotEmpty();
              assertThat(self.get(self.size() - 1).json().getValue("value")).isEqualTo(false);
            });
    device.close();
  }

  /** Publishes zone 1's temperature every half second until {@code heard} holds. */
  private void reportUntil(
      BrokerClient device, String temp, java.util.concurrent.Callable<Boolean> heard) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              if (heard.call()) {
                return true;
              }
              device.publish(broker.topic("points/zone.1.temp"), temp);
              return false;
            });
  }

  /** The commands the broker saw for a point, each command_id once, in the order first seen. */
  private List<JsonObject> distinct(String point) {
    Map<String, JsonObject> byId = new LinkedHashMap<>();
    for (BrokerClient.Received r : broker.seenByBroker(broker.topic("commands/" + point))) {
      JsonObject c = r.json();
      JsonObject first = byId.putIfAbsent(c.getString("command_id"), c);
      if (first != null) {
        assertThat(c).as("a re-send carries the same command").isEqualTo(first);
      }
    }
    return new ArrayList<>(byId.values());
  }

  private List<JsonObject> awaitDistinct(String point, int count) {
    await().atMost(WAIT).until(() -> distinct(point).size() >= count);
    return distinct(point);
  }

  private List<JsonObject> awaitDistinctValue(String point, Object lastValue, int count) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              List<JsonObject> d = distinct(point);
              return d.size() >= count && lastValue.equals(d.get(d.size() - 1).getValue("value"));
            });
    return distinct(point);
  }
}
