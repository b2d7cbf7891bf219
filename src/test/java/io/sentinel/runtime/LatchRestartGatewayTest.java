package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A DSL latch through the real gateway and its store: an e-stop pressed and let go holds the motor
 * stopped, across a restart of the gateway, from the first pass, until the manual reset.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/latch"),
      @ResourceArg(name = "site-prefix", value = "latch")
    })
class LatchRestartGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String MOTOR_STOP = "line.motor-stop";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Test
  void latch_heldAcrossARestart_fromTheFirstPass_untilTheReset() {
    // The gateway says "online" after subscribing, on the same connection: from then on the broker
    // hands it what a device publishes (earlier, a sample is nobody's and the first command never
    // comes).
    await().atMost(WAIT).until(() -> broker.recorder().last(broker.topic("status")).isPresent());
    BrokerClient device = broker.client("device");
    device.publish(broker.topic("points/line.reset"), "false");
    device.publish(broker.topic("points/line.estop"), "true");
    assertThat(awaitCommands(1).get(0).json().getValue("value")).isEqualTo(true);
    device.publish(broker.topic("points/line.estop"), "false");
    // Kept when it was set, not only at a clean stop or every 10 s.
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker
                    .database()
                    .rows("SELECT latches::text FROM derived_snapshots ORDER BY seq DESC LIMIT 1")
                    .equals(List.of(List.of("[\"estop-hold\"]"))));

    gateway.restart();

    // No input is live after the restart: the restored latch alone stops the motor.
    JsonObject held = awaitCommands(2).get(1).json();
    assertThat(held.getValue("value")).isEqualTo(true);
    assertThat(held.getString("rule")).isEqualTo("estop-hold");

    device.publish(broker.topic("points/line.estop"), "false");
    device.publish(broker.topic("points/line.reset"), "true");
    JsonObject released = awaitCommands(3).get(2).json();
    assertThat(released.getString("kind")).isEqualTo("release");
    assertThat(released.getValue("value")).isEqualTo(false);
    device.close();
  }

  private List<BrokerClient.Received> awaitCommands(int atLeast) {
    String topic = broker.topic("commands/" + MOTOR_STOP);
    await().atMost(WAIT).until(() -> broker.recorder().on(topic).size() >= atLeast);
    return broker.recorder().on(topic);
  }
}
