package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, "logs that escape what they print", on a running gateway's real log file: hostile text
 * at each door that ends up in a log line (a revision's text on the ruleset topic, an MQTT payload,
 * an HTTP path, and a log call that escaped nothing itself) never starts a line of its own and
 * never puts a control character in the file: each line is one record.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/hostile"),
      @ResourceArg(name = "site-prefix", value = "forgery")
    })
@WithTestResource(value = LogFileResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class LogForgeryGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** What a forged line would look like, after the line break a hostile value carries. */
  private static final String FORGE = "\n12:00:00.000 ERROR [io.sentinel.gateway] FORGED-";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;
  @Inject Gateway gateway;

  @Test
  void hostileTextAtEveryDoor_staysInsideItsOwnLogLine() throws Exception {
    await().atMost(WAIT).until(gateway::connected);
    // A log call that escaped nothing itself: the handlers' filter does.
    Logger.getLogger("io.sentinel.gateway").warnf("probe %s", "a" + FORGE + "0 \u001b[2J\u0000");
    // A revision's text, quoted back in its problems (a wrong site, an unknown key).
    BrokerClient operator = broker.client("forgery-operator");
    String revision =
        "revision: 960\nsite: \"nope"
            + FORGE.replace("\n", "\\n")
            + "1\"\n\"k"
            + FORGE.replace("\n", "\\n")
            + "2\": 1\nrules: []\n";
    operator
        .publishAsync(broker.topic("ruleset"), revision.getBytes(StandardCharsets.UTF_8), true)
        .get(10, TimeUnit.SECONDS);
    // An MQTT payload that is no JSON, with a raw line break and an escape.
    BrokerClient device = broker.client("forgery-device");
    device
        .publishAsync(
            broker.topic("points/label"),
            ("nope" + FORGE + "3 \u001b[31m").getBytes(StandardCharsets.UTF_8),
            false)
        .get(10, TimeUnit.SECONDS);
    // An HTTP path with an encoded line break.
    RestAssured.given()
        .urlEncodingEnabled(false)
        .get("/api/v1/points/x%0A12:00:00.000%20ERROR%20FORGED-4/why")
        .then()
        .statusCode(org.hamcrest.Matchers.greaterThanOrEqualTo(400));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              String log = Files.readString(LogFileResource.file, StandardCharsets.UTF_8);
              assertThat(log).contains("FORGED-0", "FORGED-1", "FORGED-2");
            });
    operator.publishAsync(broker.topic("ruleset"), new byte[0], true).get(10, TimeUnit.SECONDS);

    String log = Files.readString(LogFileResource.file, StandardCharsets.UTF_8);
    List<String> lines = log.lines().toList();
    assertThat(lines)
        .as("no line is forged: every FORGED- marker sits inside a record's line")
        .noneMatch(l -> l.startsWith("12:00:00.000") || l.startsWith("FORGED"));
    for (char c : new char[] {'\u001b', '\u0000', '\r', '\u0085'}) {
      assertThat(log.indexOf(c)).as("U+%04X in the log", (int) c).isNegative();
    }
    assertThat(lines.stream().filter(l -> l.contains("FORGED-")))
        .isNotEmpty()
        .allSatisfy(l -> assertThat(l).contains("\\u000a12:00:00.000"));
    operator.close();
    device.close();
  }
}
