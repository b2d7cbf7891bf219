package io.sentinel.runtime;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The retained case of {@link LiveIngestGatewayTest} on the embedded broker, where it differs:
 * Moquette 0.17 delivers a retained message without its RETAIN flag, so the gateway cannot tell it
 * from a reading; it arrives before the backlog marker, though, so it is taken as backlog (a value,
 * quality live, that lets no rule out of warmup: docs/live.md).
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/live"),
      @ResourceArg(name = "site-prefix", value = "live-embedded"),
      @ResourceArg(name = "embedded", value = "always")
    })
class LiveIngestEmbeddedGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Test
  void retainedValueOfASilentSensor_takenAsBacklog_keepsItsRuleInWarmup_untilAFreshSample() {
    assertThat(broker.isEmbedded()).isTrue();
    BrokerClient device = broker.client("cellar");
    String topic = broker.topic("points/cellar.temp");
    gateway.restart(
        () -> device.publishAsync(topic, "35".getBytes(StandardCharsets.UTF_8), true).join());
    await().atMost(WAIT).until(() -> value("cellar.temp") == 35.0);
    await().atMost(WAIT).until(() -> !gateway.loop().drainingBacklog());
    LiveIngestGatewayTest.sleep(Duration.ofSeconds(2));
    assertThat(rule("cellar-fan").getString("state")).isEqualTo("warmup");
    assertThat(fanCommands()).noneMatch(c -> Boolean.TRUE.equals(c.getValue("value")));

    device.publish(topic, "36");
    await()
        .atMost(WAIT)
        .until(
            () -> fanCommands().stream().anyMatch(c -> Boolean.TRUE.equals(c.getValue("value"))));
    assertThat(rule("cellar-fan").getString("state")).isEqualTo("active");
  }

  private double value(String point) {
    Object v =
        given().get("/api/v1/points/" + point).then().statusCode(200).extract().path("value");
    return v instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private JsonObject rule(String id) {
    return new JsonObject(
        given().get("/api/v1/rules/" + id).then().statusCode(200).extract().asString());
  }

  private java.util.List<JsonObject> fanCommands() {
    return broker.recorder().on(broker.topic("commands/cellar.fan")).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }
}
