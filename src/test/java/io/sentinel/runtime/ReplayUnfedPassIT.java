package io.sentinel.runtime;

import static io.sentinel.runtime.HeaterScript.HEATER;
import static io.sentinel.runtime.HeaterScript.POINTS;
import static io.sentinel.runtime.HeaterScript.RULES;
import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGKILLs a moment after a decision (issue 16, docs/replay.md "After a SIGKILL"): the heater's
 * command is out on the broker while the pass that decided it is at best in the gateway's journal,
 * not yet in PostgreSQL. However each race falls (the pass fed before the kill, journaled and fed
 * by the restarted gateway, or lost and its sample delivered again to the next run), replay with
 * the rules that ran finds nothing different, over a window holding three such kills.
 */
class ReplayUnfedPassIT {
  private static final int KILLS = 3;

  private TestDatabase db;
  private PackagedGateway rig;
  private Process gateway;
  private int starts;

  @BeforeEach
  void setUp() {
    rig =
        new PackagedGateway(
            "replayunfed",
            POINTS,
            Map.of("heating.yaml", RULES),
            Duration.ofSeconds(200),
            false,
            "status",
            "commands/#");
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    rig.closeWith(db);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void killedJustAfterDecisions_theWindowReplaysWithoutDifference() throws Exception {
    start();
    rig.await("the fail-safe command", () -> commands() >= 1);
    Instant from = Instant.now();
    warm();
    List<String> races = new ArrayList<>();
    for (int k = 0; k < KILLS; k++) {
      long heatedBefore = heated(Instant.now());
      int sent = rig.recorder.on(rig.topic("commands/" + HEATER)).size();
      rig.device.publish(rig.topic("points/rc.temp"), "18");
      rig.await(
          "the heater commanded on",
          () -> rig.recorder.on(rig.topic("commands/" + HEATER)).size() > sent);
      gateway.destroyForcibly();
      Instant killed = Instant.now();
      assertThat(gateway.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(gateway.exitValue()).as("killed by SIGKILL").isEqualTo(137);
      boolean fed = heated(killed) > heatedBefore;
      start();
      warm();
      races.add(fed ? "fed before the kill" : heated(killed) > heatedBefore ? "journaled" : "lost");
    }
    Thread.sleep(500);
    Instant to = Instant.now();
    long decisions = db.count("SELECT count(*) FROM decisions WHERE at >= '" + from + "'");
    long claims = db.count("SELECT count(*) FROM claim_changes WHERE at >= '" + from + "'");

    CliRunner ran = CliRunner.replay(from, to, db.configUrl(), "--site", rig.siteDir().toString());
    assertThat(ran.exit()).as(ran.output()).isZero();
    assertThat(ran.output())
        .contains("with the rules that ran (" + (KILLS + 1) + " start(s)")
        .contains(decisions + " matched, 0 only in replay, 0 only in history")
        .contains("claims: " + claims + " matched, 0 only in replay, 0 only in history");
    System.out.printf(
        "ReplayUnfedPassIT (%s): the heater-on passes at the %d kills: %s; %d commands asked"
            + " and %d claim changes in the window, each matched%n",
        rig.mqtt, KILLS, races, decisions, claims);
  }

  /**
   * The interlock's pressure live and the temperature above the threshold, each logged: the heater
   * released again, whatever a sample delivered again after a kill did meanwhile.
   */
  private void warm() {
    long released = releases();
    rig.device.publish(rig.topic("points/rc.pressure"), "1.5");
    rig.await("the interlock let go", () -> releases() > released);
    long temps = temps();
    rig.device.publish(rig.topic("points/rc.temp"), "30");
    rig.await("30 degC logged", () -> temps() > temps);
  }

  private void start() throws IOException {
    gateway =
        rig.start(
            "",
            rig.restartable(0),
            Map.of("SENTINEL_DB_URL", db.configUrl(), "SENTINEL_MQTT_VERSION", rig.mqttVersion()));
    rig.awaitOnline(gateway, ++starts);
  }

  /** The heater-on decisions PostgreSQL holds from before {@code t}. */
  private long heated(Instant t) {
    return db.count(
        "SELECT count(*) FROM decisions WHERE rule_id = 'heater-on' AND at < '" + t + "'");
  }

  /** How often the interlock let go (after a start, its pressure live below 3 bar). */
  private long releases() {
    return db.count(
        "SELECT count(*) FROM claim_changes WHERE rule_id = 'heater-cutoff' AND value IS NULL");
  }

  private long temps() {
    return db.count("SELECT count(*) FROM observations WHERE point_id = 'rc.temp'");
  }

  private long commands() {
    return db.count("SELECT count(*) FROM commands WHERE point_id = '" + HEATER + "'");
  }
}
