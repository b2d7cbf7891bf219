package io.sentinel.site;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.CommandTemplate;
import io.sentinel.point.PointDriver;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ready device mappings of seeds/payloads/devices.yaml (docs/devices.md): they load, render the
 * commands the devices take, and read the devices' own payloads of that folder; and the load checks
 * of value maps and command templates, each naming file, line and a REG- code.
 */
class DeviceMappingsTest {
  private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");
  private static final Path SEEDS = Path.of("seeds/payloads");

  @Test
  void shippedMappings_load_renderTheDevicesCommands_andReadTheirStates() throws Exception {
    Problems problems = new Problems();
    Registry registry =
        RegistryLoader.load(
            "seeds/payloads/devices.yaml",
            Files.readString(SEEDS.resolve("devices.yaml")),
            problems);
    assertThat(problems.sorted()).isEmpty();

    assertThat(render(registry, "pump.plug", Value.TRUE)).isEqualTo("ON");
    assertThat(render(registry, "pump.plug", Value.FALSE)).isEqualTo("OFF");
    assertThat(render(registry, "hall.light", Value.TRUE)).isEqualTo("{\"state\": \"ON\"}");
    assertThat(render(registry, "hall.dimmer", Value.of(200))).isEqualTo("{\"brightness\": 200}");
    assertThat(render(registry, "hall.blind", Value.of(40))).isEqualTo("{\"position\": 40}");
    assertThat(render(registry, "fan.relay", Value.TRUE)).isEqualTo("on");
    assertThat(render(registry, "fan.relay", Value.FALSE)).isEqualTo("off");
    assertThat(template(registry, "pump.plug").qos()).isEqualTo(1);
    assertThat(template(registry, "pump.plug").retain()).isFalse();

    IngestDecoder decoder =
        IngestDecoder.of(registry, new Topics("example"), 16384, new ArrayList<>());
    assertThat(decode(decoder, "stat/pump-plug/POWER", "tasmota-stat-power.txt"))
        .containsExactly(Sample.live("pump.plug", Value.TRUE, AT));
    assertThat(decode(decoder, "zigbee2mqtt/hall-light", "zigbee2mqtt-switch.json"))
        .containsExactly(Sample.live("hall.light", Value.TRUE, AT));
    assertThat(decode(decoder, "zigbee2mqtt/hall-dimmer", "zigbee2mqtt-dimmer.json"))
        .containsExactly(Sample.live("hall.dimmer", Value.of(200), AT));
    assertThat(decode(decoder, "zigbee2mqtt/hall-blind", "zigbee2mqtt-cover.json"))
        .containsExactly(Sample.live("hall.blind", Value.of(60), AT));
    assertThat(decode(decoder, "shellyplus1pm-a8032ab1/status/switch:0", "shelly-switch.json"))
        .containsExactly(Sample.live("fan.relay", Value.TRUE, AT));
  }

  @Test
  void valueMapOnIngest_numericCodesToAnEnum_andAWordItDoesNotKnowIsRefused() {
    Registry registry =
        load("""
            points:
              alarm.mode:
                type: enum
                values: [disarmed, home, away]
                direction: in
                source: { mqtt: { topic: panel/state, json_path: $.mode,
                                  map: { 0: disarmed, 1: home, 2: away } } }
            """)
            .registry;
    IngestDecoder decoder =
        IngestDecoder.of(registry, new Topics("example"), 16384, new ArrayList<>());
    assertThat(decoder.decode("panel/state", "{\"mode\": 2}".getBytes(), AT).samples())
        .containsExactly(Sample.live("alarm.mode", Value.of("away"), AT));
    IngestDecoder.Decoded unknown = decoder.decode("panel/state", "{\"mode\": 7}".getBytes(), AT);
    assertThat(unknown.samples()).isEmpty();
    assertThat(unknown.rejections().get(0).message())
        .isEqualTo("alarm.mode: '7' is not in its value map (0, 1, 2)");
  }

  @Test
  void loadErrors_nameFileLineAndCode() {
    List<Problem> problems =
        load("""
                points:
                  a.plug:
                    type: bool
                    direction: inout
                    source: { mqtt: { topic: stat/a/POWER, map: { "ON": true } } }
                  b.light:
                    type: bool
                    direction: out
                    driver: { mqtt: { topic: z/b/set, payload: '{"state": {{value}}}',
                                      map: { true: "ON", false: "OFF" } } }
                  c.level:
                    type: number
                    direction: out
                    driver: { mqtt: { topic: z/c/set, map: { 1: "ONE" } } }
                  d.relay:
                    type: bool
                    direction: out
                    driver: { mqtt: { topic: d/set, payload: "{{val}}", qos: 3 } }
                  e.flag:
                    type: bool
                    direction: in
                    value_map: { "yes": true, "no": false }
                  f.mode:
                    type: enum
                    values: [open, closed, stuck]
                    direction: in
                    source: { mqtt: { topic: f/state, map: { "1": open, "0": closed } } }
                """)
            .problems;
    assertThat(problems)
        .extracting(p -> p.code() + " " + p.file() + ":" + p.line())
        .containsExactly(
            "REG-100 points.yaml:5",
            "REG-102 points.yaml:9",
            "REG-101 points.yaml:14",
            "REG-103 points.yaml:18",
            "REG-102 points.yaml:18",
            "REG-104 points.yaml:22",
            "REG-100 points.yaml:27");
    assertThat(problems.get(0).message())
        .isEqualTo(
            "point a.plug: the value map does not cover the point's bool type: no spelling for false");
    assertThat(problems.get(1).message())
        .isEqualTo("point b.light: payload for true renders as {\"state\": ON}, which is not JSON");
    assertThat(problems.get(6).message()).endsWith("no spelling for stuck");
  }

  @Test
  void timestampMappingErrors_nameFileLineAndCode_aGoodOneLoads() {
    Loaded loaded =
        load(
            """
            points:
              a.temp:
                type: number
                direction: in
                source: { mqtt: { topic: z2m/a, json_path: $.temperature,
                                  timestamp: { format: epoch_ms } } }
              b.temp:
                type: number
                direction: in
                source: { mqtt: { topic: z2m/b, json_path: $.temperature,
                                  timestamp: { json_path: $.last_seen, format: local } } }
              c.temp:
                type: number
                direction: in
                source: { mqtt: { topic: z2m/c, json_path: $.temperature,
                                  timestamp: { json_path: $.last_seen, format: epoch_ms } } }
            """);
    assertThat(loaded.problems)
        .extracting(p -> p.code() + " " + p.file() + ":" + p.line() + " " + p.message())
        .containsExactly(
            "REG-120 points.yaml:6 point a.temp: source.mqtt.timestamp needs a json_path",
            "REG-120 points.yaml:11 point b.temp: source.mqtt.timestamp format is iso8601,"
                + " epoch_s or epoch_ms, not local");
    assertThat(loaded.registry.find("c.temp").orElseThrow().source())
        .hasValueSatisfying(
            s ->
                assertThat(((io.sentinel.point.PointSource.Mqtt) s).timestamp())
                    .contains(
                        new io.sentinel.point.PointSource.DeviceTimestamp(
                            "$.last_seen", io.sentinel.point.PointSource.TimeFormat.EPOCH_MS)));
  }

  private record Loaded(Registry registry, List<Problem> problems) {}

  private static Loaded load(String yaml) {
    Problems problems = new Problems();
    Registry r = RegistryLoader.load("points.yaml", yaml, problems);
    return new Loaded(r, problems.sorted());
  }

  private static CommandTemplate template(Registry registry, String id) {
    PointDriver.Mqtt m = (PointDriver.Mqtt) registry.find(id).orElseThrow().driver().orElseThrow();
    return m.template().orElseThrow();
  }

  private static String render(Registry registry, String id, Value v) {
    Optional<String> rendered = template(registry, id).render(v);
    return rendered.orElseThrow();
  }

  private static List<Sample> decode(IngestDecoder decoder, String topic, String file)
      throws Exception {
    IngestDecoder.Decoded d = decoder.decode(topic, Files.readAllBytes(SEEDS.resolve(file)), AT);
    assertThat(d.rejections()).as(file).isEmpty();
    return d.samples();
  }
}
