package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.pi4j.io.gpio.digital.DigitalState;
import com.pi4j.plugin.mock.provider.gpio.digital.MockDigitalInput;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.gpio.GpioAdapter;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * docs/devices.md end to end, over the real broker, GPIO on Pi4J's mock pins (site
 * src/test/resources/sites/devices): a GPIO contact and a derived point on their state topics; a
 * simulated Tasmota plug, Zigbee2MQTT relay and dimmer and Shelly Gen2 relay, each answering its
 * commands on its own state topic as the device does, driven by rules and converging; a plug that
 * never answers.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/devices"),
      @ResourceArg(name = "substitute-site", value = "true"),
      @ResourceArg(name = "site-prefix", value = "devices"),
      @ResourceArg(name = "sentinel.gpio.platform", value = "mock"),
      @ResourceArg(name = "sentinel.state.min-interval", value = "200ms"),
      @ResourceArg(name = "sentinel.command.convergence-bound", value = "2s"),
      @ResourceArg(name = "sentinel.homeassistant.discovery", value = "true"),
      @ResourceArg(name = "sentinel.homeassistant.override-for", value = "3s")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DevicesGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final int DOOR = 6;

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  private BrokerClient tasmota;
  private BrokerClient zigbee;
  private BrokerClient shelly;

  /** The devices, answering as they do, before anything is commanded. */
  @BeforeAll
  void devices() {
    String site = broker.site();
    tasmota = broker.client("tasmota").subscribe("cmnd/" + site + "-plug/POWER");
    tasmota.onMessage(
        r -> tasmota.publishAsync("stat/" + site + "-plug/POWER", r.payload(), false));
    zigbee =
        broker
            .client("zigbee2mqtt")
            .subscribe("zigbee2mqtt/" + site + "-relay/set", "zigbee2mqtt/" + site + "-dimmer/set");
    // Zigbee2MQTT answers a /set with the device's whole state, on the device's own topic.
    zigbee.onMessage(
        r -> {
          String device = r.topic().substring(0, r.topic().length() - "/set".length());
          JsonObject state = r.json().put("linkquality", 120);
          if (device.endsWith("-dimmer")) {
            state.put("state", state.getInteger("brightness") > 0 ? "ON" : "OFF");
          }
          zigbee.publishAsync(device, state.toBuffer().getBytes(), false);
        });
    shelly = broker.client("shelly").subscribe(site + "-shelly/command/switch:0");
    shelly.onMessage(
        r ->
            shelly.publishAsync(
                site + "-shelly/status/switch:0",
                new JsonObject()
                    .put("id", 0)
                    .put("source", "MQTT")
                    .put("output", r.text().equals("on"))
                    .put("apower", r.text().equals("on") ? 8.9 : 0)
                    .put("temperature", new JsonObject().put("tC", 43.1))
                    .toBuffer()
                    .getBytes(),
                false));
  }

  private final List<String> discovered = new java.util.concurrent.CopyOnWriteArrayList<>();

  @AfterAll
  void close() {
    // The broker left as it was: no retained discovery config of this run.
    discovered.forEach(t -> broker.recorder().publishAsync(t, new byte[0], true).join());
    tasmota.close();
    zigbee.close();
    shelly.close();
  }

  @Test
  @Order(1)
  void gpioInput_onItsStateTopic_withValueAndQuality_atABoundedRate_thenStaleAndUnavailable()
      throws Exception {
    String topic = broker.topic("state/door.contact");
    input(DOOR).mockState(DigitalState.HIGH);
    await().atMost(WAIT).until(() -> state(topic).map(s -> s.getBoolean("value")).orElse(false));
    JsonObject s = state(topic).orElseThrow();
    assertThat(s.getString("quality")).isEqualTo("live");
    assertThat(Instant.parse(s.getString("ts"))).isBefore(Instant.now().plusSeconds(1));
    assertThat(s.fieldNames()).containsExactlyInAnyOrder("value", "quality", "ts");

    // Ten edges in 500 ms, each past the 20 ms debounce: at most one message per 200 ms, and the
    // topic ends on the last level.
    int before = broker.recorder().on(topic).size();
    long start = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      input(DOOR).mockState(i % 2 == 0 ? DigitalState.LOW : DigitalState.HIGH);
      Thread.sleep(50);
    }
    input(DOOR).mockState(DigitalState.LOW);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    await()
        .atMost(WAIT)
        .until(
            () ->
                state(topic)
                    .filter(j -> !j.getBoolean("value") && j.getString("quality").equals("live"))
                    .isPresent());
    int sent = broker.recorder().on(topic).size() - before;
    assertThat(sent).isGreaterThan(0).isLessThanOrEqualTo((int) (took.toMillis() / 200) + 2);

    // No edge for 2 s: the watchdog says stale, then (4 s) unavailable, and the topic says so.
    await()
        .atMost(WAIT)
        .until(() -> state(topic).map(j -> j.getString("quality")).orElse("").equals("stale"));
    await()
        .atMost(WAIT)
        .until(
            () -> state(topic).map(j -> j.getString("quality")).orElse("").equals("unavailable"));
    assertThat(state(topic).orElseThrow().getBoolean("value")).isFalse();

    // Retained: a client that comes later is told at once.
    if (!broker.isEmbedded()) {
      try (BrokerClient late = broker.client("late").subscribe(topic)) {
        await().atMost(WAIT).until(() -> !late.on(topic).isEmpty());
        assertThat(late.on(topic).get(0).json().getString("quality")).isEqualTo("unavailable");
      }
    }
  }

  @Test
  @Order(2)
  void derivedPoint_onItsStateTopic_andStaleWhenItsInputIs() {
    String topic = broker.topic("state/hall.warm");
    broker.client("sensor").publish(broker.topic("points/hall.temp"), "30");

    await().atMost(WAIT).until(() -> state(topic).map(s -> s.getBoolean("value")).orElse(false));
    assertThat(state(topic).orElseThrow().getString("quality")).isEqualTo("live");
    // The sensor itself reports over MQTT: its state is not published by default (own points).
    assertThat(broker.recorder().on(broker.topic("state/hall.temp"))).isEmpty();

    await()
        .atMost(WAIT)
        .until(() -> !state(topic).map(j -> j.getString("quality")).orElse("").equals("live"));
    assertThat(state(topic).orElseThrow().getString("quality")).isIn("stale", "unavailable");
  }

  @Test
  @Order(3)
  void tasmotaPlug_drivenOnAndOffByARule_inItsOwnWords_andConverging() {
    Instant since = Instant.now();
    String cmnd = "cmnd/" + broker.site() + "-plug/POWER";
    BrokerClient operator = broker.client("operator");
    operator.publish(broker.topic("points/scene.level"), "\"dim\"");
    operator.publish(broker.topic("points/scene.on"), "true");

    await().atMost(WAIT).until(() -> point("pump.plug").value().equals(Value.TRUE));
    assertThat(tasmota.last(cmnd).orElseThrow().text()).isEqualTo("ON");
    assertThat(point("pump.plug").quality()).isEqualTo(Quality.LIVE);

    operator.publish(broker.topic("points/scene.on"), "false");
    await().atMost(WAIT).until(() -> point("pump.plug").value().equals(Value.FALSE));
    assertThat(tasmota.last(cmnd).orElseThrow().text()).isEqualTo("OFF");

    // A word the value map does not know is refused at the door, and nothing else happens.
    operator.publish("stat/" + broker.site() + "-plug/POWER", "BLINK");
    await()
        .atMost(WAIT)
        .until(
            () ->
                events("ingest-rejected").stream()
                    .anyMatch(
                        e -> e.getString("message").contains("'BLINK' is not in its value map")));
    assertThat(point("pump.plug").value()).isEqualTo(Value.FALSE);
    assertThat(notConverged("pump.plug", since)).isEmpty();
    operator.close();
  }

  @Test
  @Order(4)
  void zigbee2mqttRelayAndDimmer_throughSet_andConverging() {
    Instant since = Instant.now();
    String site = broker.site();
    BrokerClient operator = broker.client("operator");
    operator.publish(broker.topic("points/scene.on"), "true");
    operator.publish(broker.topic("points/scene.level"), "\"bright\"");

    await().atMost(WAIT).until(() -> point("hall.light").value().equals(Value.TRUE));
    assertThat(zigbee.last("zigbee2mqtt/" + site + "-relay/set").orElseThrow().json())
        .isEqualTo(new JsonObject().put("state", "ON"));
    await().atMost(WAIT).until(() -> point("hall.dimmer").value().equals(Value.of(200)));
    assertThat(zigbee.last("zigbee2mqtt/" + site + "-dimmer/set").orElseThrow().json())
        .isEqualTo(new JsonObject().put("brightness", 200));

    operator.publish(broker.topic("points/scene.level"), "\"dim\"");
    await().atMost(WAIT).until(() -> point("hall.dimmer").value().equals(Value.of(20)));
    assertThat(zigbee.last("zigbee2mqtt/" + site + "-dimmer/set").orElseThrow().json())
        .isEqualTo(new JsonObject().put("brightness", 20)); // its release_value
    assertThat(notConverged("hall.light", since)).isEmpty();
    assertThat(notConverged("hall.dimmer", since)).isEmpty();
    operator.close();
  }

  @Test
  @Order(5)
  void shellyGen2Relay_onOff_confirmedByItsStatus() {
    Instant since = Instant.now();
    String command = broker.site() + "-shelly/command/switch:0";
    BrokerClient operator = broker.client("operator");
    operator.publish(broker.topic("points/scene.on"), "true");
    await().atMost(WAIT).until(() -> point("fan.relay").value().equals(Value.TRUE));
    assertThat(shelly.last(command).orElseThrow().text()).isEqualTo("on");

    operator.publish(broker.topic("points/scene.on"), "false");
    await().atMost(WAIT).until(() -> point("fan.relay").value().equals(Value.FALSE));
    assertThat(shelly.last(command).orElseThrow().text()).isEqualTo("off");
    assertThat(notConverged("fan.relay", since)).isEmpty();
    operator.close();
  }

  @Test
  @Order(6)
  void plugThatNeverAnswers_notConverged_eventAndSelfPoint_untilItReportsTheCommandedState() {
    // hall.warm has been true since step 2: spare.plug was commanded ON, and no device answers.
    String self = broker.topic("self/point.spare.plug.not-converged");
    await().atMost(WAIT).until(() -> !notConverged("spare.plug").isEmpty());
    JsonObject e = notConverged("spare.plug").get(0);
    assertThat(e.getString("message")).contains("2s after command spare.plug/");
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker.recorder().last(self).map(r -> r.json().getBoolean("value")).orElse(false));
    assertThat(gateway.running()).isTrue();

    // The plug comes back and says what it was last told (hall.warm went stale in step 2, so the
    // rule let go and the plug was told its release value): converged again.
    boolean told =
        broker
            .recorder()
            .last(broker.topic("claims/spare.plug"))
            .orElseThrow()
            .json()
            .getBoolean("value");
    broker
        .client("dead-plug")
        .publish("stat/" + broker.site() + "-dead/POWER", told ? "ON" : "OFF");
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker.recorder().last(self).map(r -> !r.json().getBoolean("value")).orElse(false));
    assertThat(events("command-converged"))
        .anySatisfy(c -> assertThat(c.getString("subject")).isEqualTo("spare.plug"));
  }

  /** What Home Assistant requires of each component's discovery config, beside the common keys. */
  private static final Map<String, List<String>> REQUIRED =
      Map.of(
          "binary_sensor", List.of("state_topic"),
          "sensor", List.of("state_topic"),
          "switch", List.of("command_topic"),
          "number", List.of("command_topic"),
          "select", List.of("command_topic", "options"),
          "text", List.of("command_topic"));

  @Test
  @Order(7)
  void homeAssistantDiscovery_retainedConfigs_withTheFieldsEachComponentRequires() {
    String node = "sentinel_" + broker.site().replaceAll("[^A-Za-z0-9_-]", "_");
    BrokerClient ha =
        broker.client("homeassistant").subscribe("homeassistant/+/" + node + "/+/config");
    try {
      // Retained: Home Assistant, started after the gateway, is told at once.
      // 5 outputs, 2 sensors (a GPIO input, a derived point), 5 not-converged and 3 suspended.
      await().atMost(WAIT).until(() -> ha.received().size() >= 15);
      Map<String, JsonObject> byTopic = new java.util.TreeMap<>();
      ha.received().forEach(r -> byTopic.put(r.topic(), r.json()));
      discovered.addAll(byTopic.keySet());
      assertThat(byTopic).hasSize(15);
      for (Map.Entry<String, JsonObject> e : byTopic.entrySet()) {
        String[] parts = e.getKey().split("/");
        assertThat(parts).hasSize(5);
        assertThat(parts[3]).matches("[A-Za-z0-9_-]+");
        JsonObject c = e.getValue();
        assertThat(REQUIRED).containsKey(parts[1]);
        assertThat(c.fieldNames()).as(e.getKey()).containsAll(REQUIRED.get(parts[1]));
        assertThat(c.fieldNames())
            .containsAll(List.of("name", "unique_id", "device", "availability"));
        assertThat(c.getJsonObject("device").getJsonArray("identifiers")).contains(node);
        JsonObject status = c.getJsonArray("availability").getJsonObject(0);
        assertThat(status.getString("topic")).isEqualTo(broker.topic("status"));
        assertThat(status.getString("payload_available")).isEqualTo("online");
        for (String key : c.fieldNames()) {
          if (key.endsWith("_topic")) {
            assertThat(c.getString(key))
                .doesNotContain("+", "#")
                .startsWith("sentinel/" + broker.site() + "/");
          }
        }
      }
      JsonObject plug = byTopic.get("homeassistant/switch/" + node + "/pump_plug_output/config");
      assertThat(plug.getString("state_topic")).isEqualTo(broker.topic("claims/pump.plug"));
      assertThat(plug.getString("command_topic")).isEqualTo(broker.topic("ha/pump.plug/set"));
      assertThat(plug.getString("json_attributes_template")).contains("rule", "band");
      JsonObject dimmer =
          byTopic.get("homeassistant/number/" + node + "/hall_dimmer_output/config");
      assertThat(dimmer.getDouble("min")).isEqualTo(0.0);
      assertThat(dimmer.getDouble("max")).isEqualTo(254.0);
      JsonObject door = byTopic.get("homeassistant/binary_sensor/" + node + "/door_contact/config");
      assertThat(door.getString("state_topic")).isEqualTo(broker.topic("state/door.contact"));
      assertThat(byTopic)
          .containsKey("homeassistant/binary_sensor/" + node + "/hall_warm/config")
          .containsKey(
              "homeassistant/binary_sensor/" + node + "/self_point_spare_plug_not-converged/config")
          .containsKey(
              "homeassistant/binary_sensor/" + node + "/self_rule_scene-on_suspended/config");
    } finally {
      ha.close();
    }
  }

  @Test
  @Order(8)
  void homeAssistantSwitchCommand_anOperatorOverride_changesTheOutput_andExpires() {
    BrokerClient operator = broker.client("operator");
    operator.publish(broker.topic("points/scene.on"), "false");
    await().atMost(WAIT).until(() -> point("pump.plug").value().equals(Value.FALSE));
    String cmnd = "cmnd/" + broker.site() + "-plug/POWER";

    BrokerClient ha = broker.client("homeassistant");
    ha.publish(broker.topic("ha/pump.plug/set"), "ON");

    await().atMost(WAIT).until(() -> point("pump.plug").value().equals(Value.TRUE));
    assertThat(tasmota.last(cmnd).orElseThrow().text()).isEqualTo("ON");
    JsonObject claims =
        broker.recorder().last(broker.topic("claims/pump.plug")).orElseThrow().json();
    assertThat(claims.getJsonObject("winner").getString("band")).isEqualTo("operator");
    assertThat(claims.getJsonObject("winner").getString("rule")).isEqualTo("override:operator");
    // Audited as an override, by Home Assistant.
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker
                        .database()
                        .count(
                            "SELECT count(*) FROM audit_log WHERE kind = 'override'"
                                + " AND (reason || detail::text) ILIKE '%home%assistant%'")
                    > 0);

    // 3 s later it has expired: the output is back to what the rules say (scene off: released).
    await().atMost(WAIT).until(() -> point("pump.plug").value().equals(Value.FALSE));
    assertThat(tasmota.last(cmnd).orElseThrow().text()).isEqualTo("OFF");

    // A word a switch does not take is refused, as an event.
    ha.publish(broker.topic("ha/pump.plug/set"), "MAYBE");
    await().atMost(WAIT).until(() -> !events("ha-command-refused").isEmpty());
    assertThat(events("ha-command-refused").get(0).getString("message"))
        .contains("'MAYBE' is not a value of pump.plug (ON or OFF)");
    ha.close();
    operator.close();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private java.util.Optional<JsonObject> state(String topic) {
    return broker.recorder().last(topic).map(BrokerClient.Received::json);
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private List<JsonObject> notConverged(String pointId) {
    return notConverged(pointId, Instant.EPOCH);
  }

  /**
   * The point's convergence failures reported since {@code since} (the first commands go out before
   * the test's simulated devices have subscribed: those are not the device's fault).
   */
  private List<JsonObject> notConverged(String pointId, Instant since) {
    return events("command-not-converged").stream()
        .filter(e -> e.getString("subject").equals(pointId))
        .filter(e -> !Instant.parse(e.getString("ts")).isBefore(since))
        .toList();
  }

  private MockDigitalInput input(int pin) {
    return gateway.gpio().orElseThrow().context().io(GpioAdapter.ioId(pin), MockDigitalInput.class);
  }

  private PointState point(String id) {
    try {
      return gateway
          .loop()
          .inspectEngine(e -> e.points().state(id).orElseThrow())
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
