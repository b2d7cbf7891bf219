package io.sentinel.runtime;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Operator overrides set through the HTTP API survive a restart of the real gateway with their
 * original end; one that ended while the gateway was down is not restored, and the events, the
 * control-event log and the audit log say so.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "sentinel.gpio.platform", value = "off"),
      @ResourceArg(name = "site-prefix", value = "ovr"),
      @ResourceArg(name = "sentinel.api.token", value = OverrideRestartGatewayTest.TOKEN)
    })
class OverrideRestartGatewayTest {
  static final String TOKEN = "override-restart-token";
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String PUMP = "boiler.ch1.pump";
  private static final String BURNER = "boiler.ch1.burner";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Test
  void anOverrideHoldsThroughARestart_untilItsOriginalEnd_anEndedOneIsNotRestored() {
    Instant pumpUntil = override(PUMP, "2h", "pump service");
    Instant burnerUntil = override(BURNER, "8s", "burner check");
    // Kept at once, not only at the next periodic snapshot or a clean stop.
    await()
        .atMost(WAIT)
        .until(
            () ->
                kept().contains("\"point\": \"" + PUMP + "\"")
                    && kept().contains("\"point\": \"" + BURNER + "\""));
    assertThat(Instant.now())
        .as("the burner's override still runs at the stop")
        .isBefore(burnerUntil);
    int pumpCommandsBefore = commands(PUMP).size();

    gateway.restart(
        () -> {
          // Down past the burner's end, well within the pump's.
          while (!Instant.now().isAfter(burnerUntil.plusMillis(200))) {
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
          }
        });

    // The pump is held off again from the restarted gateway's first decisions, until 2h after the
    // operator asked, not 2h after the restart.
    await().atMost(WAIT).until(() -> commands(PUMP).size() > pumpCommandsBefore);
    JsonObject held = commands(PUMP).get(pumpCommandsBefore);
    assertThat(held.getString("rule")).isEqualTo("override:operator");
    assertThat(held.getValue("value")).isEqualTo(false);
    given()
        .get("/api/v1/points/" + PUMP)
        .then()
        .statusCode(200)
        .body("override.by", equalTo("alice"))
        .body("override.until", equalTo(pumpUntil.toString()))
        .body("override.value", equalTo(false));
    given().get("/api/v1/points/" + BURNER).then().statusCode(200).body("override", equalTo(null));

    await()
        .atMost(WAIT)
        .until(
            () ->
                events("override-restored").stream()
                        .anyMatch(e -> e.getString("subject").equals(PUMP))
                    && events("override-expired").stream()
                        .anyMatch(e -> e.getString("subject").equals(BURNER)));
    JsonObject expired =
        events("override-expired").stream()
            .filter(e -> e.getString("subject").equals(BURNER))
            .findFirst()
            .orElseThrow();
    assertThat(expired.getString("message")).contains("while the gateway was down", "not restored");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(
                      broker
                          .database()
                          .rows(
                              "SELECT message FROM control_events WHERE kind = 'override-expired'"
                                  + " AND subject = '"
                                  + BURNER
                                  + "'"))
                  .singleElement()
                  .satisfies(r -> assertThat(r.get(0)).contains("while the gateway was down"));
              assertThat(
                      broker
                          .database()
                          .rows(
                              "SELECT reason FROM audit_log WHERE kind = 'override'"
                                  + " ORDER BY seq"))
                  .extracting(r -> r.get(0))
                  .anySatisfy(r -> assertThat(r).startsWith("override restored after a restart"))
                  .anySatisfy(r -> assertThat(r).contains("while the gateway was down"));
              // What is kept now is what holds now: a next restart does not hear of the burner.
              assertThat(kept()).contains(PUMP).doesNotContain(BURNER);
            });
  }

  /** Sets an override as an operator would; returns its end. */
  private Instant override(String point, String expiresIn, String reason) {
    String until =
        authorized()
            .contentType("application/json")
            .body(
                new JsonObject()
                    .put("value", false)
                    .put("expires_in", expiresIn)
                    .put("by", "alice")
                    .put("reason", reason)
                    .encode())
            .put("/api/v1/points/" + point + "/override")
            .then()
            .statusCode(200)
            .extract()
            .path("until");
    return Instant.parse(until);
  }

  /** The overrides of the newest snapshot, as PostgreSQL prints them. */
  private String kept() {
    List<List<String>> rows =
        broker
            .database()
            .rows("SELECT overrides::text FROM derived_snapshots ORDER BY seq DESC LIMIT 1");
    return rows.isEmpty() ? "" : rows.get(0).get(0);
  }

  private List<JsonObject> commands(String point) {
    return broker.recorder().on(broker.topic("commands/" + point)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private RequestSpecification authorized() {
    return given().header("Authorization", "Bearer " + TOKEN);
  }
}
