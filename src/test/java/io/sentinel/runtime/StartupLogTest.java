package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 23 item 5, on the real start-up log: a line with the dashboard and API address; a broker
 * that cannot be reached said once with its reason, not at every retry; no Flyway chatter and no
 * duplicate-gauge warning at INFO.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "startlog"),
      // Nothing listens on port 1: every connect attempt is refused, retried every 50-100 ms.
      @ResourceArg(name = "sentinel.mqtt.url", value = "tcp://127.0.0.1:1"),
      @ResourceArg(name = "sentinel.mqtt.reconnect-initial", value = "50ms"),
      @ResourceArg(name = "sentinel.mqtt.reconnect-max", value = "100ms")
    })
@WithTestResource(value = LogFileResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
class StartupLogTest {
  @Inject Gateway gateway;

  @Test
  void startUp_saysWhereTheDashboardIs_andWhyTheBrokerIsAway_onceThroughItsRetries()
      throws IOException {
    assertThat(gateway.running()).isTrue();
    assertThat(gateway.connected()).isFalse();
    // Several retries happen meanwhile (50-100 ms apart); the log still says it once.
    await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> true);
    List<String> log = Files.readAllLines(LogFileResource.file);

    assertThat(log.stream().filter(l -> l.contains("SEN-017")))
        .as(String.join("\n", log))
        .singleElement()
        .asString()
        .contains(
            "dashboard http://localhost:" + RestAssured.port + "/",
            "API http://localhost:" + RestAssured.port + "/api/v1/");
    assertThat(log.stream().filter(l -> l.contains("SEN-011")))
        .as(String.join("\n", log))
        .singleElement()
        .asString()
        .contains("cannot reach the MQTT broker at tcp://127.0.0.1:1: ")
        .containsIgnoringCase("refused");
    assertThat(log)
        .noneMatch(l -> l.contains("already registered"))
        .noneMatch(l -> l.contains("[org.flywaydb"))
        .anyMatch(l -> l.contains("SEN-002"));
  }
}
