package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalOutput;
import com.pi4j.io.gpio.digital.DigitalState;
import com.pi4j.plugin.mock.provider.gpio.digital.MockDigitalInput;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.gpio.GpioAdapter;
import io.sentinel.gpio.GpioPlatform;
import io.sentinel.gpio.PinLog;
import io.sentinel.gpio.PulseCut;
import io.sentinel.point.Quality;
import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The gateway on Pi4J's mock pins (site src/test/resources/sites/gpio): an e-stop loop, a demand
 * contact and a door button on GPIO inputs, an air dump, a pump relay (active low) and a door
 * strike on GPIO outputs, a flow temperature and a hold-open switch over MQTT. The steps build on
 * each other, in order, on one gateway.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/gpio"),
      @ResourceArg(name = "site-prefix", value = "gpio"),
      @ResourceArg(name = "sentinel.gpio.platform", value = "mock")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GpioGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final int ESTOP = 23;
  private static final int AIR_DUMP = 24;
  private static final int DEMAND = 22;
  private static final int PUMP = 17;
  private static final int BUTTON = 5;
  private static final int STRIKE = 12;

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @TestHTTPResource("/q/health/ready")
  URI ready;

  @Test
  @Order(1)
  void start_failSafeInterlockDrivesItsOutput_beforeAnyInputIsLive_othersInTheirSafeState() {
    assertThat(adapter().platform()).isEqualTo(GpioPlatform.MOCK);
    JsonObject health = new JsonObject(Http.get(ready));
    assertThat(health.getJsonArray("checks").stream().map(JsonObject.class::cast))
        .anySatisfy(
            c -> {
              assertThat(c.getString("name")).isEqualTo("sentinel-gpio");
              assertThat(c.getString("status")).isEqualTo("UP");
              assertThat(c.getJsonObject("data").getString("platform")).isEqualTo("mock");
            });
    await().atMost(WAIT).until(() -> out(AIR_DUMP) == DigitalState.HIGH);
    assertThat(out(PUMP)).isEqualTo(DigitalState.HIGH); // off: the relay is active low
    assertThat(out(STRIKE)).isEqualTo(DigitalState.LOW);

    // The journal's order: the air dump was on its pin before the first GPIO sample was taken.
    await()
        .atMost(WAIT)
        .until(
            () ->
                db().count("SELECT count(*) FROM observations WHERE source LIKE 'gpio:%'") >= 3
                    && db().count(
                                "SELECT count(*) FROM command_states WHERE state = 'delivered'"
                                    + " AND command_id LIKE 'cell.air-dump/%'")
                        == 1);
    Instant driven =
        instant(
            "SELECT min(s.at) FROM command_states s JOIN commands c USING (command_id)"
                + " WHERE c.point_id = 'cell.air-dump' AND s.state = 'delivered'");
    Instant firstInput =
        instant("SELECT min(received_at) FROM observations WHERE source LIKE 'gpio:%'");
    assertThat(driven).isBefore(firstInput);
    assertThat(db().rows("SELECT point_id, kind, band, rule_id FROM commands ORDER BY seq LIMIT 1"))
        .containsExactly(List.of("cell.air-dump", "assert", "interlock", "estop-air-dump"));
    assertThat(db().rows("SELECT DISTINCT source FROM observations ORDER BY source"))
        .containsExactly(List.of("gpio:22"), List.of("gpio:23"), List.of("gpio:5"));
  }

  @Test
  @Order(2)
  void inputEdge_estopLoopCloses_interlockLetsGoAndTheAirDumpGoesToItsReleaseValue() {
    input(ESTOP).mockState(DigitalState.HIGH);

    await().atMost(WAIT).until(() -> out(AIR_DUMP) == DigitalState.LOW);
    assertThat(point("cell.estop-ok").quality()).isEqualTo(Quality.LIVE);
  }

  @Test
  @Order(3)
  void mixedRule_gpioDemandAndMqttTemperature_driveTheActiveLowPumpRelay() {
    broker.client("device").publish(broker.topic("points/boiler.flow-temp"), "60");
    input(DEMAND).mockState(DigitalState.HIGH);

    await().atMost(WAIT).until(() -> out(PUMP) == DigitalState.LOW); // on
    JsonObject claims = awaitLast("claims/boiler.pump");
    assertThat(claims.getJsonObject("winner").getString("rule")).isEqualTo("pump-on-demand");

    broker.client("device").publish(broker.topic("points/boiler.flow-temp"), "85");
    await().atMost(WAIT).until(() -> out(PUMP) == DigitalState.HIGH); // off: too hot

    broker.client("device").publish(broker.topic("points/boiler.flow-temp"), "70");
    await().atMost(WAIT).until(() -> out(PUMP) == DigitalState.LOW);
  }

  @Test
  @Order(4)
  void doorButton_strikePulsedForItsDuration() {
    PinLog strike = PinLog.of(context(), STRIKE);
    // A mock pin reads low at start: the button (a contact to ground, active low) reads pressed.
    input(BUTTON).mockState(DigitalState.HIGH);
    await()
        .atMost(WAIT)
        .until(() -> point("door.button").value().equals(io.sentinel.point.Value.FALSE));

    input(BUTTON).mockState(DigitalState.LOW); // pressed

    await().atMost(WAIT).until(() -> strike.changes() >= 2);
    assertThat(strike.energised()).isBetween(Duration.ofMillis(250), Duration.ofMillis(900));
    assertThat(out(STRIKE)).isEqualTo(DigitalState.LOW);
    input(BUTTON).mockState(DigitalState.HIGH);
  }

  @Test
  @Order(5)
  void holdOpen_aClaimOfTrue_strikeNeverEnergisedPastPulseMax() throws Exception {
    PinLog strike = PinLog.of(context(), STRIKE);

    broker.client("device").publish(broker.topic("points/door.hold-open"), "true");

    await().atMost(WAIT).until(() -> strike.changes() >= 2);
    assertThat(strike.energised()).isBetween(Duration.ofMillis(900), Duration.ofMillis(1100));
    Thread.sleep(1500);
    assertThat(out(STRIKE)).isEqualTo(DigitalState.LOW);
    assertThat(strike.changes()).isEqualTo(2);
    broker.client("device").publish(broker.topic("points/door.hold-open"), "false");
  }

  @Test
  @Order(6)
  void pulseMax_anEngineLateWithItsPulseOff_theAdapterCutsTheStrike_andItIsAControlEvent()
      throws Exception {
    String topic = broker.topic("events/" + PulseCut.KIND);
    int before = broker.recorder().on(topic).size();
    await().atMost(WAIT).until(() -> out(STRIKE) == DigitalState.LOW);
    PinLog strike = PinLog.of(context(), STRIKE);
    BrokerClient operator = broker.client("operator");

    operator.publish(broker.topic("points/door.hold-open"), "true");
    await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> strike.changes() >= 1);
    // The engine stalls past pulse_max (1 s): the command plane's pulse-off comes too late, the
    // adapter's own timer de-energises the strike.
    gateway
        .loop()
        .operate(
            (engine, now) -> {
              java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(1600).toNanos());
              return null;
            })
        .get(10, TimeUnit.SECONDS);

    assertThat(strike.changes()).isEqualTo(2);
    assertThat(strike.energised()).isBetween(Duration.ofMillis(900), Duration.ofMillis(1100));
    await().atMost(WAIT).until(() -> broker.recorder().on(topic).size() > before);
    JsonObject cut = broker.recorder().on(topic).get(before).json();
    assertThat(cut.getString("kind")).isEqualTo("pulse-cut");
    assertThat(cut.getString("subject")).isEqualTo("door.strike");
    assertThat(cut.getString("message"))
        .startsWith("door.strike (pin " + STRIKE + ") de-energised by the GPIO adapter")
        .contains("pulse_max 1000 ms", "energised ", "asked to stay on");
    // Journaled like the command plane's events.
    await()
        .atMost(WAIT)
        .until(
            () ->
                db().count(
                            "SELECT count(*) FROM control_events WHERE kind = 'pulse-cut'"
                                + " AND subject = 'door.strike'")
                    > 0);
    operator.publish(broker.topic("points/door.hold-open"), "false");
    operator.close();
  }

  @Test
  @Order(7)
  void stop_everyOutputToItsSafeState_andTheInterlockAgainFirstAtTheNextStart() {
    await().atMost(WAIT).until(() -> out(PUMP) == DigitalState.LOW); // the pump still runs
    DigitalOutput pump = context().io(GpioAdapter.ioId(PUMP), DigitalOutput.class);
    DigitalOutput airDump = context().io(GpioAdapter.ioId(AIR_DUMP), DigitalOutput.class);

    gateway.restart();

    assertThat(pump.state()).isEqualTo(DigitalState.HIGH); // off, active low
    assertThat(airDump.state()).isEqualTo(DigitalState.LOW);
    // A new start: the mock e-stop loop reads open again, the interlock dumps the air at once.
    await().atMost(WAIT).until(() -> out(AIR_DUMP) == DigitalState.HIGH);
    assertThat(out(PUMP)).isEqualTo(DigitalState.HIGH);
  }

  private GpioAdapter adapter() {
    return gateway.gpio().orElseThrow();
  }

  private Context context() {
    return adapter().context();
  }

  private DigitalState out(int pin) {
    return context().io(GpioAdapter.ioId(pin), DigitalOutput.class).state();
  }

  private MockDigitalInput input(int pin) {
    return context().io(GpioAdapter.ioId(pin), MockDigitalInput.class);
  }

  private io.sentinel.point.PointState point(String id) {
    try {
      return gateway
          .loop()
          .inspectEngine(e -> e.points().state(id).orElseThrow())
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private TestDatabase db() {
    return broker.database();
  }

  private Instant instant(String query) {
    return db().rows("SELECT extract(epoch FROM (" + query + "))::text").stream()
        .map(r -> r.get(0))
        .map(s -> Instant.ofEpochMilli(Math.round(Double.parseDouble(s) * 1000)))
        .findFirst()
        .orElseThrow();
  }

  private JsonObject awaitLast(String rest) {
    String topic = broker.topic(rest);
    await().atMost(WAIT).until(() -> !broker.recorder().on(topic).isEmpty());
    List<BrokerClient.Received> all = broker.recorder().on(topic);
    return all.get(all.size() - 1).json();
  }
}
