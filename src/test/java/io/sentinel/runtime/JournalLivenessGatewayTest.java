package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 13, "liveness reflects a journal that cannot move" (the gateway froze while liveness said
 * UP), on a running gateway with its own broker and PostgreSQL, the journal bounded at 1 MiB and
 * {@code sentinel.journal.stuck-after=3s}: when PostgreSQL answers and takes nothing (a trigger
 * refuses every insert), and when the journal sits at its bound (PostgreSQL unable to take
 * anything), {@code /q/health/live} is 503 with {@code sentinel-journal} DOWN and its reason, the
 * event {@code journal-stuck} and the self point {@code journal.stuck} say it; once the journal can
 * move it is UP again, and every sample published meanwhile is in PostgreSQL: nothing was lost.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/hostile"),
      @ResourceArg(name = "site-prefix", value = "stuck"),
      @ResourceArg(name = "sentinel.journal.max-mb", value = "1"),
      @ResourceArg(name = "sentinel.journal.stuck-after", value = "3s"),
      @ResourceArg(name = "sentinel.db.write-timeout", value = "1s"),
      @ResourceArg(name = "sentinel.db.retry-max", value = "1s")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JournalLivenessGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;
  @Inject Gateway gateway;

  private static int sent;

  @Test
  @Order(1)
  void postgresqlAnsweringAndTakingNothing_takesLivenessDown_withItsReason_andBackUp()
      throws Exception {
    await().atMost(WAIT).until(gateway::connected);
    assertLive(true);
    BrokerClient device = broker.client("stuck-device");
    List<String> values = new ArrayList<>();
    // PostgreSQL answers every batch with an error that is no row's fault (as a full disk or a
    // revoked permission would): nothing is set aside, the journal holds everything and feeds
    // nothing.
    broker
        .database()
        .execute(
            "CREATE FUNCTION refuse_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE"
                + " EXCEPTION 'observations take nothing (test)'; END $$");
    broker
        .database()
        .execute(
            "CREATE TRIGGER refuse_all BEFORE INSERT ON observations FOR EACH STATEMENT EXECUTE"
                + " FUNCTION refuse_all()");
    try {
      publish(device, values, 5, 10);
      JsonPath down = awaitLive(false);
      assertThat(journalCheck(down).get("reason").toString())
          .contains("PostgreSQL answers and takes none of the journal's batches")
          .contains("observations take nothing (test)");
      assertThat(((Number) journalCheck(down).get("for_seconds")).longValue())
          .isGreaterThanOrEqualTo(3);
      assertThat(gateway.running()).isTrue();
      await()
          .atMost(WAIT)
          .until(() -> !broker.recorder().on(broker.topic("events/journal-stuck")).isEmpty());
      await()
          .atMost(WAIT)
          .until(
              () ->
                  broker
                      .recorder()
                      .last(broker.topic("self/journal.stuck"))
                      .map(r -> r.json().getBoolean("value"))
                      .orElse(false));
    } finally {
      broker.database().execute("DROP TRIGGER refuse_all ON observations");
    }
    awaitLive(true);
    assertAllLogged(values);
    // Both said in the log too, once it moves again.
    for (String kind : List.of("journal-stuck", "journal-moving")) {
      await()
          .alias(kind + " in control_events")
          .atMost(WAIT)
          .until(
              () ->
                  broker
                          .database()
                          .count("SELECT count(*) FROM control_events WHERE kind = '" + kind + "'")
                      >= 1);
    }
    device.close();
  }

  @Test
  @Order(2)
  void aJournalAtItsBound_stopsIngest_takesLivenessDown_andBackUpOnceItDrains() throws Exception {
    awaitLive(true);
    BrokerClient device = broker.client("stuck-device-2");
    List<String> values = new ArrayList<>();
    // PostgreSQL does not answer in time (a lock holds the table): the journal holds what it gets
    // up to its bound (1 MiB), then its writer waits and nothing is acknowledged any more.
    try (Connection lock = broker.database().open()) {
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        s.execute("LOCK TABLE observations IN ACCESS EXCLUSIVE MODE");
      }
      // 8 KB values: 200 of them are 1.6 MB of journal, past its bound.
      publish(device, values, 200, 8_000);
      await().atMost(WAIT).until(() -> gateway.journal().orElseThrow().full());
      JsonPath down = awaitLive(false);
      assertThat(journalCheck(down).get("reason").toString())
          .contains("the journal is at its bound")
          .contains("no MQTT message is acknowledged");
      assertThat(gateway.running()).isTrue();
      lock.rollback();
    }
    awaitLive(true);
    assertAllLogged(values);
    device.close();
  }

  /** {@code n} distinct values of {@code size} characters on the string point, at QoS 1. */
  private void publish(BrokerClient device, List<String> values, int n, int size) throws Exception {
    for (int i = 0; i < n; i++) {
      String tag = "stuck-" + (sent++) + "-";
      String v = tag + "x".repeat(Math.max(0, size - tag.length()));
      device
          .publishAsync(
              broker.topic("points/label"),
              ("\"" + v + "\"").getBytes(StandardCharsets.UTF_8),
              false)
          .get(10, TimeUnit.SECONDS);
      values.add(tag);
    }
  }

  private void assertAllLogged(List<String> tags) {
    await()
        .alias("every sample in observations")
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        broker
                            .database()
                            .rows(
                                "SELECT split_part(value #>> '{}', '-', 1) || '-'"
                                    + " || split_part(value #>> '{}', '-', 2) || '-'"
                                    + " FROM observations WHERE point_id = 'label'"))
                    .extracting(r -> r.get(0))
                    .containsAll(tags));
  }

  private static void assertLive(boolean up) {
    RestAssured.get("/q/health/live").then().statusCode(up ? 200 : 503);
  }

  private static JsonPath awaitLive(boolean up) {
    JsonPath[] last = {null};
    await()
        .alias(up ? "liveness UP" : "liveness DOWN")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              var r = RestAssured.get("/q/health/live");
              last[0] = r.jsonPath();
              return r.statusCode() == (up ? 200 : 503)
                  && journalCheck(last[0]).get("status").equals(up ? "UP" : "DOWN");
            });
    return last[0];
  }

  /** The {@code sentinel-journal} check's status and data, as one map. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> journalCheck(JsonPath health) {
    List<Map<String, Object>> checks = health.getList("checks");
    Map<String, Object> check =
        checks.stream()
            .filter(c -> "sentinel-journal".equals(c.get("name")))
            .findFirst()
            .orElseThrow();
    Map<String, Object> out = new java.util.HashMap<>();
    out.put("status", check.get("status"));
    Object data = check.get("data");
    if (data instanceof Map<?, ?> d) {
      out.putAll((Map<String, Object>) d);
    }
    out.putIfAbsent("reason", "");
    return out;
  }
}
