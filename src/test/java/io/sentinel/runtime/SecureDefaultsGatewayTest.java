package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionKeys;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The example site as shipped, run with GPIO pins (the mock platform), no trusted keys and no
 * {@code allow_unsigned_revisions} (issue 17): every pushed revision is rejected with a status that
 * says how to set up keys, and a sample is refused, counted and without effect when it comes from
 * where its point's input does not: a GPIO-sourced input, an output, a derived point, and a mapped
 * point on the gateway's own topic.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "secure"),
      @ResourceArg(name = "sentinel.gpio.platform", value = "mock")
    })
class SecureDefaultsGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @TestHTTPResource("/q/metrics")
  URI metrics;

  @Test
  void withoutKeysOrAllowUnsigned_unsignedAndSignedRevisionsAreRejected_sayingHowToSetUpKeys()
      throws Exception {
    long active = gateway.activeRevision();
    String doc =
        "revision: "
            + (active + 1)
            + "\nsite: "
            + broker.site()
            + "\nrules:\n"
            + Site.read(Path.of("rules/boiler.yaml")).replace("flow.value > 35", "flow.value > 45")
            + Site.read(Path.of("rules/door.yaml"));
    String unsigned = push(doc);
    assertThat(unsigned)
        .contains("[REV-020]", "allow_unsigned_revisions", "sentinel keygen", "keys.yaml")
        .contains("rejected; revision " + active + " stays active");
    // A revision number of its own: the embedded broker (Moquette) drops the RETAIN flag, so push
    // could not tell the first push's retained status from this one's answer.
    String next = doc.replaceFirst("revision: " + (active + 1), "revision: " + (active + 2));
    String signed =
        push(RevisionDocument.withSignature(next, RevisionKeys.generate().getPrivate()));
    assertThat(signed).contains("[REV-025]", "trusts no keys");
    assertThat(gateway.activeRevision()).isEqualTo(active);
  }

  @Test
  void samplesFromWhereTheirPointDoesNotTakeThem_areRejectedCounted_andChangeNothing()
      throws Exception {
    BrokerClient device = broker.client("device");
    // A mapped point takes its mapped topic: the sample that sets the baseline.
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    await().atMost(WAIT).until(() -> value("boiler.ch1.flow-temp") != null);
    // Values may be null (an output nothing commanded yet): a HashMap keeps them.
    Map<String, Object> before = new java.util.HashMap<>();
    for (String p : List.of("boiler.ch1.demand", "boiler.ch1.pump", "door.main.left-open")) {
      before.put(p, value(p));
    }

    // Each sample says the opposite of what the point holds, so that one taken would show.
    Map<String, String> samples =
        Map.of(
            "boiler.ch1.demand", opposite(before.get("boiler.ch1.demand")), // GPIO pin 22
            "boiler.ch1.pump", opposite(before.get("boiler.ch1.pump")), // an output
            "door.main.left-open", opposite(before.get("door.main.left-open")), // derived
            "boiler.ch1.flow-temp", "99"); // mapped from zigbee2mqtt/boiler-flow
    samples.forEach((point, payload) -> device.publish(broker.topic("points/" + point), payload));

    for (String reason : List.of("gpio-sourced", "not-an-input", "derived-point", "wrong-topic")) {
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(Http.get(metrics))
                      .contains("sentinel_ingest_rejected_total{reason=\"" + reason + "\"} 1.0"));
    }
    List<JsonObject> events =
        broker.recorder().on(broker.topic("events/ingest-rejected")).stream()
            .map(BrokerClient.Received::json)
            .toList();
    assertThat(events)
        .anySatisfy(
            e -> {
              assertThat(e.getString("point")).isEqualTo("boiler.ch1.demand");
              assertThat(e.getString("message")).contains("GPIO pin 22");
            })
        .anySatisfy(
            e ->
                assertThat(e.getString("message"))
                    .contains("boiler.ch1.flow-temp takes samples from zigbee2mqtt/boiler-flow"));
    before.forEach((point, value) -> assertThat(value(point)).as(point).isEqualTo(value));
    // Not 99 (the mapped topic zigbee2mqtt/boiler-flow is shared by every test on the broker).
    assertThat(value("boiler.ch1.flow-temp")).isNotEqualTo(99);
    device.close();
  }

  private static String opposite(Object value) {
    return Boolean.TRUE.equals(value) ? "false" : "true";
  }

  private static Object value(String point) {
    return RestAssured.get("/api/v1/points/" + point)
        .then()
        .statusCode(200)
        .extract()
        .jsonPath()
        .get("value");
  }

  private String push(String document) throws Exception {
    Path dir = Files.createDirectories(Path.of("target/scratch/secure-" + broker.site()));
    CliRunner push = new RevisionCli(broker, dir).push(document, null, null);
    assertThat(push.exit()).as(push.output()).isEqualTo(1);
    return push.output();
  }
}
