package io.sentinel.runtime;

import static io.restassured.RestAssured.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, "sentinel keygen and the docs show the whole operator flow (sign, review, push)", done
 * as docs/revisions.md tells an operator to, with nothing but the command line: keys made by {@code
 * sentinel keygen} and trusted by the entries it printed ({@link OperatorKeysResource}); an
 * ordinary change signed and pushed by the author; the fail-safe interlock removed by a document
 * {@code sentinel sign} signed by the author alone, refused while the interlock goes on deciding;
 * the same file signed by the reviewer with {@code sentinel sign --review}, then active, and the
 * interlock no longer decides. The interlock is driven through the boiler pressure, a point on this
 * site's own topic (the flow's mapped topic is shared by every test on the broker).
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "flow")
    })
@WithTestResource(value = OperatorKeysResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class OperatorFlowGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String BURNER = "boiler.ch1.burner";
  private static final String INTERLOCK = "boiler-overheat-cutoff";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Test
  void keygenSignReviewPush_asTheDocsShowIt() throws Exception {
    Path keys = OperatorKeysResource.dir;
    String author = keys.resolve("ops.key").toString();
    String reviewer = keys.resolve("safety-officer.key").toString();
    BrokerClient device = broker.client("device");
    long start = gateway.activeRevision();

    // The interlock decides on this site's files: clear at 1.6 bar, cut-off at 3.0.
    device.publish(broker.topic("points/boiler.ch1.demand"), "true");
    assertBurnerFollows(device, 1.6, "burner-on-demand");
    assertBurnerFollows(device, 3.0, INTERLOCK);

    // An ordinary change: the author's key, given to push.
    Path ordinary =
        revision("ordinary.yaml", start + 1, rules().replace("flow.value > 35", "flow.value > 45"));
    CliRunner pushed = push(ordinary, "--key", author);
    assertThat(pushed.exit()).as(pushed.output()).isZero();
    assertThat(pushed.output()).contains("revision " + (start + 1) + " active (signed by ops)");

    // The interlock removed, signed by the author alone: refused, the interlock decides on.
    Path removal = revision("removal.yaml", start + 2, RulesetPushGatewayTest.withoutInterlock());
    CliRunner signed = CliRunner.run("sign", removal.toString(), "--key", author);
    assertThat(signed.exit()).as(signed.output()).isZero();
    assertThat(signed.output()).contains("with signature by");
    CliRunner unreviewed = push(removal);
    assertThat(unreviewed.exit()).as(unreviewed.output()).isEqualTo(1);
    assertThat(unreviewed.output())
        .contains("[REV-022] rule " + INTERLOCK + ":", "removes interlock rule")
        .contains("rejected; revision " + (start + 1) + " stays active");
    assertThat(gateway.activeRevision()).isEqualTo(start + 1);
    assertBurnerFollows(device, 1.6, "burner-on-demand");
    assertBurnerFollows(device, 3.0, INTERLOCK);

    // The reviewer signs the same file on their own machine; pushed without a key.
    CliRunner review = CliRunner.run("sign", removal.toString(), "--review", "--key", reviewer);
    assertThat(review.exit()).as(review.output()).isZero();
    assertThat(review.output()).contains("with review_signature by");
    assertThat(Files.readString(removal)).contains("\nsignature: ", "\nreview_signature: ");
    CliRunner reviewed = push(removal);
    assertThat(reviewed.exit()).as(reviewed.output()).isZero();
    assertThat(reviewed.output())
        .contains(
            "revision " + (start + 2) + " active (signed by ops, reviewed by safety-officer)");
    assertThat(gateway.activeRevision()).isEqualTo(start + 2);
    get("/api/v1/rules/" + INTERLOCK).then().statusCode(404);
    // Over-pressure no longer cuts the burner: the rule set that decides is the reviewed one.
    assertBurnerFollows(device, 1.6, "burner-on-demand");
    assertBurnerFollows(device, 3.1, "burner-on-demand");
    device.close();
  }

  /** Publishes the pressure, waits until the engine has it, and names the burner's winner then. */
  private void assertBurnerFollows(BrokerClient device, double bar, String winner) {
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    device.publish(broker.topic("points/boiler.ch1.pressure"), Double.toString(bar));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Object pressure =
                  get("/api/v1/points/boiler.ch1.pressure").then().extract().path("value");
              assertThat(pressure).isInstanceOf(Number.class);
              assertThat(((Number) pressure).doubleValue()).isCloseTo(bar, within(1e-6));
              assertThat(
                      get("/api/v1/claims/" + BURNER)
                          .then()
                          .statusCode(200)
                          .extract()
                          .jsonPath()
                          .getString("winner.rule"))
                  .as("the burner's winner at %s bar", bar)
                  .isEqualTo(winner);
            });
  }

  private static String rules() {
    return Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));
  }

  private Path revision(String name, long number, String rules) throws Exception {
    Path dir = Files.createDirectories(OperatorKeysResource.dir.resolve("revisions"));
    return Files.writeString(
        dir.resolve(name),
        "revision: " + number + "\nsite: " + broker.site() + "\nrules:\n" + rules);
  }

  private CliRunner push(Path file, String... key) {
    return new RevisionCli(broker, file.getParent()).push(file, key);
  }
}
