package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.store.EmbeddedDatabase;
import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 24, item 2: the gateway starts while nothing listens where its PostgreSQL should be. The
 * fail-safe interlock's command goes out within a second of the start, samples are decided and
 * acknowledged (the local journal holds them), readiness says PostgreSQL is away; then, 60 s after
 * the start (the power cut: PostgreSQL comes up after the gateway), a PostgreSQL of the
 * test's own starts on that port, and every sample reaches the log, in order, none twice.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "nodb"),
      @ResourceArg(
          name = "sentinel.db.url",
          value =
              "postgresql://postgres@127.0.0.1:" + NoDatabaseAtStartGatewayTest.PORT + "/sentinel")
    })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NoDatabaseAtStartGatewayTest {
  /** Where the gateway's PostgreSQL will be: nothing listens there when it starts. */
  static final int PORT = 54391;

  private static final String FLOW = "boiler.ch1.flow-temp";
  private static final int SAMPLES = 500;

  /** When PostgreSQL comes up after the gateway's start (issue 24: 60 s). */
  private static final Duration POSTGRES_AFTER = Duration.ofSeconds(60);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  private EmbeddedDatabase server;

  @AfterAll
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void startsWithoutPostgres_interlockAtOnce_samplesDecided_thenEverySampleLoggedInOrderOnce()
      throws Exception {
    String burnerTopic = broker.topic("commands/boiler.ch1.burner");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !broker.recorder().on(burnerTopic).isEmpty());
    JsonObject burner = broker.recorder().on(burnerTopic).get(0).json();
    Instant started =
        Instant.parse(
            broker
                .recorder()
                .last(broker.topic("status"))
                .orElseThrow()
                .json()
                .getString("started"));
    assertThat(burner.getValue("value")).isEqualTo(false);
    assertThat(burner.getString("band")).isEqualTo("interlock");
    assertThat(Duration.between(started, Instant.parse(burner.getString("ts"))))
        .isLessThan(Duration.ofSeconds(1));
    assertThat(Duration.between(started, broker.recorder().on(burnerTopic).get(0).at()))
        .isLessThan(Duration.ofSeconds(2));
    assertThat(gateway.databaseReady()).isFalse();

    // Samples decided while PostgreSQL is away: the pump runs on (flow hot, demand ended).
    BrokerClient device = broker.client("device");
    List<String> published = new ArrayList<>();
    for (int i = 0; i < SAMPLES; i++) {
      String v = Integer.toString(40 + i % 50) + "." + (i / 50);
      // The flow is mapped from its Zigbee2MQTT topic, the only topic it is taken from.
      device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": " + v + "}");
      published.add(v);
    }
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> !broker.recorder().on(broker.topic("commands/boiler.ch1.pump")).isEmpty());
    // Acknowledged to the broker: the local journal is the durable point.
    await().atMost(Duration.ofSeconds(15)).until(() -> gateway.unacknowledged() == 0);
    assertThat(gateway.databaseReady()).isFalse();

    // PostgreSQL comes up a minute after the gateway: the feeder's backoff is at its longest.
    Duration wait = POSTGRES_AFTER.minus(Duration.between(started, Instant.now()));
    if (!wait.isNegative()) {
      Thread.sleep(wait.toMillis());
    }
    assertThat(gateway.databaseReady()).isFalse();
    Path data = Files.createTempDirectory("sentinel-nodb-pg");
    server = EmbeddedDatabase.start(data, TestDatabase.binaries(), false, PORT);
    await().atMost(Duration.ofSeconds(60)).until(gateway::databaseReady);
    String jdbc = "jdbc:postgresql://127.0.0.1:" + PORT + "/sentinel";
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                query(jdbc, "SELECT count(*) FROM observations WHERE point_id = '" + FLOW + "'")
                    .get(0)
                    .equals("" + SAMPLES));
    List<String> logged =
        query(
            jdbc,
            "SELECT value::text FROM observations WHERE point_id = '" + FLOW + "' ORDER BY seq");
    assertThat(logged)
        .containsExactlyElementsOf(
            published.stream()
                .map(v -> new java.math.BigDecimal(v).stripTrailingZeros().toPlainString())
                .toList());
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                query(jdbc, "SELECT count(*) FROM control_events WHERE kind = 'journal-recovered'")
                    .get(0)
                    .equals("1"));
    device.close();
  }

  private static List<String> query(String jdbc, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (var c = DriverManager.getConnection(jdbc, "postgres", null);
        var s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
