package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.YamlRegistry;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IngestDecoderTest {
  private static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");
  private static final Topics TOPICS = new Topics("home");
  private static final Registry REGISTRY =
      YamlRegistry.of(
          """
          points:
            hall.temp: { type: number, unit: degC, direction: in, range: [0, 120],
                         source: { mqtt: { topic: zigbee2mqtt/hall, json_path: $.temperature } } }
            hall.humidity: { type: number, unit: "%", direction: in,
                             source: { mqtt: { topic: zigbee2mqtt/hall, json_path: $.humidity } } }
            boiler.flow: { type: number, unit: degC, direction: in, range: [0, 120] }
            tank.level: { type: number, direction: in }
            valve: { type: number, unit: "%", direction: inout, range: [0, 100] }
            door.closed: { type: bool, direction: in }
            mode: { type: enum, values: [auto, manual], direction: in }
            label: { type: string, direction: in }
            pump: { type: bool, direction: out }
          """);

  private final IngestDecoder decoder = IngestDecoder.of(REGISTRY, TOPICS, 1024, new ArrayList<>());

  @Test
  void bareScalar_isALiveSampleStampedAtReceipt() {
    assertThat(own("boiler.flow", "42.5").samples())
        .containsExactly(new Sample("boiler.flow", Value.of(42.5), Quality.LIVE, AT));
    assertThat(own("door.closed", "true").samples())
        .extracting(Sample::value)
        .containsExactly(Value.TRUE);
    assertThat(own("mode", "\"manual\"").samples())
        .extracting(Sample::value)
        .containsExactly(Value.of("manual"));
  }

  @Test
  void everySample_carriesItsPointsPositionInTheRegistry() {
    List<String> ids = REGISTRY.inOrder().stream().map(p -> p.id()).toList();
    assertThat(own("boiler.flow", "42.5").samples())
        .extracting(Sample::position)
        .containsExactly(ids.indexOf("boiler.flow"));
    assertThat(decode("zigbee2mqtt/hall", "{\"temperature\": 21.5, \"humidity\": 40}").samples())
        .extracting(Sample::pointId, Sample::position)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("hall.temp", ids.indexOf("hall.temp")),
            org.assertj.core.groups.Tuple.tuple("hall.humidity", ids.indexOf("hall.humidity")));
  }

  @Test
  void object_withQualityAndTimestamp_isTaken() {
    var d =
        own(
            "boiler.flow",
            "{\"value\": 40, \"quality\": \"stale\", \"ts\": \"2026-11-30T09:59:59Z\"}");
    assertThat(d.samples())
        .containsExactly(new Sample("boiler.flow", Value.of(40), Quality.STALE, AT));
  }

  @Test
  void qualityAlone_keepsTheValueAbsent() {
    assertThat(own("boiler.flow", "{\"quality\": \"unavailable\"}").samples())
        .containsExactly(new Sample("boiler.flow", Value.ABSENT, Quality.UNAVAILABLE, AT));
  }

  @Test
  void compatibleUnit_isConvertedToThePointsUnit() {
    var d = own("boiler.flow", "{\"value\": 212, \"unit\": \"degF\"}");
    assertThat(((Value.Num) d.samples().get(0).value()).value()).isCloseTo(100.0, within());
  }

  @Test
  void outOfRangeValue_isTakenForThePointTableToMarkBad() {
    assertThat(own("valve", "250").samples()).hasSize(1);
  }

  @Test
  void thirdPartyTopic_feedsEveryPointMappedToIt() {
    var d =
        decode("zigbee2mqtt/hall", "{\"temperature\": 21.5, \"humidity\": 48, \"battery\": 90}");
    assertThat(d.samples())
        .extracting(Sample::pointId)
        .containsExactly("hall.temp", "hall.humidity");
    assertThat(d.rejections()).isEmpty();
  }

  @Test
  void thirdPartyTopic_missingValue_rejectsOnlyThatPoint() {
    var d = decode("zigbee2mqtt/hall", "{\"temperature\": 21.5}");
    assertThat(d.samples()).extracting(Sample::pointId).containsExactly("hall.temp");
    assertThat(d.rejections())
        .extracting(IngestDecoder.Rejection::reason)
        .containsExactly(RejectReason.PATH_NOT_FOUND);
  }

  @ParameterizedTest(name = "{0} on {1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "OVERSIZE        | boiler.flow | LONG",
        "UNREADABLE_JSON | boiler.flow | {\"value\": 4",
        "UNREADABLE_JSON | boiler.flow | 42 43",
        "UNREADABLE_JSON | boiler.flow | NaN",
        "UNREADABLE_JSON | boiler.flow | ''",
        "UNKNOWN_POINT   | no.such     | 1",
        "NOT_AN_INPUT    | pump        | true",
        "WRONG_TYPE      | boiler.flow | \"42\"",
        "NOT_FINITE      | boiler.flow | 1e999",
        "WRONG_TYPE      | boiler.flow | [42]",
        "WRONG_TYPE      | door.closed | 1",
        "WRONG_TYPE      | door.closed | {\"value\": {\"on\": true}}",
        "WRONG_TYPE      | label       | 12",
        "NOT_IN_ENUM     | mode        | \"off\"",
        "UNKNOWN_UNIT    | boiler.flow | {\"value\": 4, \"unit\": \"furlongs\"}",
        "WRONG_UNIT      | boiler.flow | {\"value\": 4, \"unit\": \"bar\"}",
        "WRONG_UNIT      | tank.level  | {\"value\": 4, \"unit\": \"%\"}",
        "WRONG_UNIT      | door.closed | {\"value\": true, \"unit\": \"degC\"}",
        "MISSING_VALUE   | boiler.flow | {\"quality\": \"live\"}",
        "MISSING_VALUE   | boiler.flow | {}",
        "UNKNOWN_FIELD   | boiler.flow | {\"vaule\": 4}",
        "BAD_QUALITY     | boiler.flow | {\"value\": 4, \"quality\": \"restored\"}",
        "BAD_QUALITY     | boiler.flow | {\"value\": 4, \"quality\": 1}",
        "BAD_TIMESTAMP   | boiler.flow | {\"value\": 4, \"ts\": \"yesterday\"}",
      })
  void badPayload_isRejectedWithItsReasonAndNoSample(
      RejectReason reason, String point, String payload) {
    String body = payload.equals("LONG") ? "1" + " ".repeat(2000) : payload;
    var d = own(point, body);
    assertThat(d.samples()).isEmpty();
    assertThat(d.rejections()).extracting(IngestDecoder.Rejection::reason).containsExactly(reason);
    assertThat(d.rejections().get(0).topic()).isEqualTo(TOPICS.point(point));
  }

  @Test
  void invalidUtf8_isABadEncoding() {
    byte[] payload = {'"', (byte) 0xC3, (byte) 0x28, '"'};
    var d = decoder.decode(TOPICS.point("label"), payload, AT);
    assertThat(d.rejections())
        .extracting(IngestDecoder.Rejection::reason)
        .containsExactly(RejectReason.BAD_ENCODING);
  }

  @Test
  void deeplyNestedDocument_isRejectedNotACrash() {
    String deep = "[".repeat(5000) + "]".repeat(5000);
    assertThat(
            IngestDecoder.of(REGISTRY, TOPICS, 100_000, new ArrayList<>())
                .decode(TOPICS.point("boiler.flow"), deep.getBytes(StandardCharsets.UTF_8), AT)
                .rejections())
        .hasSize(1);
  }

  @Test
  void hostileText_isQuotedClippedAndWithoutControlCharacters() {
    var d = own("mode", "\"" + "\\u0007x".repeat(100) + "\"");
    assertThat(d.rejections().get(0).reason()).isEqualTo(RejectReason.CONTROL_CHARACTER);
    assertThat(d.rejections().get(0).message()).doesNotContain("\u0007").contains("U+0007");
    String message = own("mode", "\"" + "x".repeat(100) + "\"").rejections().get(0).message();
    assertThat(message).contains("…");
    assertThat(message.length()).isLessThan(120);
  }

  @Test
  void unusableSource_isAStartProblemNamingThePoint() {
    List<IngestDecoder.SourceProblem> problems = new ArrayList<>();
    IngestDecoder.of(
        YamlRegistry.of(
            """
            points:
              a: { type: number, direction: in, source: { mqtt: { topic: z/a, json_path: "$.x[*]" } } }
              b: { type: number, direction: in, source: { mqtt: { topic: z/+, json_path: $.x } } }
            """),
        TOPICS,
        1024,
        problems);
    assertThat(problems).extracting(p -> p.spec().id()).containsExactly("a", "b");
    assertThat(problems.get(0).message()).contains("json_path '$.x[*]'");
    assertThat(problems.get(1).message()).contains("one exact topic");
  }

  @Test
  void seedPayloadExamples_decodeWithTheirDocumentedPaths() throws Exception {
    IngestDecoder seeds =
        IngestDecoder.of(
            YamlRegistry.of(
                """
                points:
                  hall.temp: { type: number, unit: degC, direction: in, source: { mqtt: {
                    topic: zigbee2mqtt/hall-sensor, json_path: $.temperature } } }
                  door.main.closed: { type: bool, direction: in, source: { mqtt: {
                    topic: zigbee2mqtt/door-main, json_path: $.contact } } }
                  boiler.ch1.return-temp: { type: number, unit: degC, direction: in, source: {
                    mqtt: { topic: tele/boiler-probe/SENSOR, json_path: $.DS18B20.Temperature } } }
                  pump.power: { type: number, unit: W, direction: in, source: { mqtt: {
                    topic: tele/pump-plug/SENSOR, json_path: "$.ENERGY.Power[0]" } } }
                  pump.plug: { type: enum, values: ["ON", "OFF"], direction: in, source: { mqtt: {
                    topic: stat/pump-plug/RESULT, json_path: $.POWER } } }
                  fan.relay: { type: bool, direction: in, source: { mqtt: {
                    topic: "shellyplus1pm-a8032ab1/status/switch:0", json_path: $.output } } }
                  fan.relay-temp: { type: number, unit: degC, direction: in, source: { mqtt: {
                    topic: "shellyplus1pm-a8032ab1/status/switch:0", json_path: $.temperature.tC } } }
                """),
            TOPICS,
            16384,
            new ArrayList<>());
    Map<String, String> files =
        Map.of(
            "zigbee2mqtt/hall-sensor", "zigbee2mqtt-climate.json",
            "zigbee2mqtt/door-main", "zigbee2mqtt-contact.json",
            "tele/boiler-probe/SENSOR", "tasmota-sensor.json",
            "tele/pump-plug/SENSOR", "tasmota-energy.json",
            "stat/pump-plug/RESULT", "tasmota-power.json",
            "shellyplus1pm-a8032ab1/status/switch:0", "shelly-switch.json");
    List<Sample> samples = new ArrayList<>();
    files.forEach(
        (topic, file) -> {
          try {
            var d = seeds.decode(topic, Files.readAllBytes(Path.of("seeds/payloads", file)), AT);
            assertThat(d.rejections()).as(file).isEmpty();
            samples.addAll(d.samples());
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
    assertThat(samples)
        .extracting(Sample::pointId, Sample::value)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("hall.temp", Value.of(21.5)),
            org.assertj.core.groups.Tuple.tuple("door.main.closed", Value.TRUE),
            org.assertj.core.groups.Tuple.tuple("boiler.ch1.return-temp", Value.of(41.3)),
            org.assertj.core.groups.Tuple.tuple("pump.power", Value.of(118)),
            org.assertj.core.groups.Tuple.tuple("pump.plug", Value.of("ON")),
            org.assertj.core.groups.Tuple.tuple("fan.relay", Value.TRUE),
            org.assertj.core.groups.Tuple.tuple("fan.relay-temp", Value.of(43.1)));
  }

  private IngestDecoder.Decoded own(String point, String payload) {
    return decode(TOPICS.point(point), payload);
  }

  private IngestDecoder.Decoded decode(String topic, String payload) {
    return decoder.decode(topic, payload.getBytes(StandardCharsets.UTF_8), AT);
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
