package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A backlog marker that never comes back (docs/live.md, "The backlog marker"), on the packaged
 * application: the site's broker forbids the gateway the marker's topic, an ACL left out when the
 * gateway's broker user was set up. The gateway must not stay in the drain, declining to automate,
 * for ever: once nothing has arrived for the keep-alive it takes the backlog as drained, says so
 * (SEN-121, {@code ingest-caught-up}), and a fresh sample lets its rule out of warmup and decide.
 *
 * <p>Needs PackagedGateway's Mosquitto (an {@code acl_file}); skipped on Moquette, which is started
 * without an ACL and has no setting for one here.
 */
class BacklogMarkerDeniedIT {
  private static final Duration KEEP_ALIVE = Duration.ofSeconds(5);

  private TestDatabase db;
  private PackagedGateway rig;
  private Process gateway;

  @BeforeEach
  void setUp() {
    rig =
        new PackagedGateway(
            "marker-denied",
            """
            points:
              sump.level: { type: number, unit: "%", direction: in, range: [0, 100] }
              sump.pump: { type: bool, direction: out, release_value: false }
            """,
            Map.of(
                "sump.yaml",
                """
                - id: sump-pump
                  band: automation
                  inputs: { l: sump.level }
                  when: l.value > 40
                  claims: [ { point: sump.pump, value: true } ]
                  on_input_loss: release
                  warmup: all_inputs_live
                """),
            Duration.ofSeconds(100),
            true,
            // Mosquitto handles deny lines before the grants (mosquitto.conf(5), acl_file).
            List.of("topic deny sentinel/+/ingest/marker/#", "topic readwrite #"),
            "status",
            "commands/#",
            "events/#");
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      rig.close();
    } finally {
      db.close();
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aMarkerTheBrokerForbids_endsTheDrainAfterTheKeepAlive_sayingSo_andTheRuleDecidesAfter()
      throws Exception {
    Assumptions.assumeFalse(
        rig.embeddedBroker(), "Moquette is started without an ACL: no topic can be forbidden");
    gateway = startGateway();
    // A first connect: the broker kept no session for this client id, so there is nothing to drain.
    rig.awaitOnline(gateway, 1);
    gateway.destroy();
    assertThat(gateway.waitFor(30, TimeUnit.SECONDS)).isTrue();

    Instant restarted = Instant.now();
    gateway = startGateway(); // the broker kept the session: a drain, ended by a marker it drops
    rig.await("ingest caught up", () -> !events("ingest-caught-up", restarted).isEmpty());
    Instant lagging = ts(events("ingest-lagging", restarted).get(0));
    Instant caughtUp = ts(events("ingest-caught-up", restarted).get(0));
    assertThat(events("ingest-lagging", restarted).get(0).getString("message")).contains("backlog");
    // The quiet is counted from the connect; the pass that says ingest-lagging runs a little after
    // it (under load, a few hundred ms). A marker let through would end the drain in milliseconds.
    assertThat(Duration.between(lagging, caughtUp))
        .as("the drain lasted the keep-alive's quiet, no longer than a few")
        .isGreaterThanOrEqualTo(KEEP_ALIVE.minusSeconds(1))
        .isLessThan(KEEP_ALIVE.multipliedBy(4));
    Path log = Path.of("target", "marker-denied-2.log");
    rig.await("SEN-121 in the log", () -> read(log).contains("SEN-121"));
    assertThat(read(log)).contains("did not come back", "ingest/marker/");

    rig.device.publish(rig.topic("points/sump.level"), "50");
    rig.await(
        "the pump commanded on a fresh sample",
        () ->
            rig.recorder.on(rig.topic("commands/sump.pump")).stream()
                .map(BrokerClient.Received::json)
                .anyMatch(c -> Boolean.TRUE.equals(c.getValue("value"))));
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        rig.gatewayOptions(
            "-Dquarkus.http.port=0", "-Dsentinel.mqtt.keep-alive=" + KEEP_ALIVE.toSeconds() + "s"),
        Map.of("SENTINEL_DB_URL", db.configUrl(), "SENTINEL_MQTT_VERSION", "5"));
  }

  private List<JsonObject> events(String kind, Instant since) {
    return rig.recorder.on(rig.topic("events/" + kind)).stream()
        .filter(r -> !r.at().isBefore(since))
        .map(BrokerClient.Received::json)
        .toList();
  }

  private static Instant ts(JsonObject event) {
    return Instant.parse(event.getString("ts"));
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "";
    }
  }
}
