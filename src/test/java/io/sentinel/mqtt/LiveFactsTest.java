package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.YamlRegistry;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Retained deliveries, device timestamps and the skew (docs/live.md), decoded and judged. */
class LiveFactsTest {
  private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");
  private static final Topics TOPICS = new Topics("home");
  private static final Registry REGISTRY =
      YamlRegistry.of(
          """
          points:
            hall.temp: { type: number, unit: degC, direction: in, stale_after: 30s,
                         source: { mqtt: { topic: zigbee2mqtt/hall, json_path: $.temperature,
                                           timestamp: { json_path: $.last_seen } } } }
            hall.humidity: { type: number, unit: "%", direction: in,
                             source: { mqtt: { topic: zigbee2mqtt/hall, json_path: $.humidity } } }
            plug.power: { type: number, unit: W, direction: in, stale_after: 1m,
                          source: { mqtt: { topic: tele/plug/SENSOR, json_path: $.ENERGY.Power,
                                            timestamp: { json_path: $.Epoch, format: epoch_s } } } }
            meter.kwh: { type: number, direction: in,
                         source: { mqtt: { topic: meter/ms, json_path: $.v,
                                           timestamp: { json_path: $.t, format: epoch_ms } } } }
            tasmota.temp: { type: number, direction: in,
                            source: { mqtt: { topic: tele/probe/SENSOR, json_path: $.T,
                                              timestamp: { json_path: $.Time } } } }
            boiler.flow: { type: number, unit: degC, direction: in, stale_after: 30s }
          """);

  private final List<IngestDecoder.SourceProblem> problems = new ArrayList<>();
  private final IngestDecoder decoder = IngestDecoder.of(REGISTRY, TOPICS, 4096, problems);
  private final LiveFacts facts = new LiveFacts(REGISTRY, Duration.ofMinutes(1));

  private IngestDecoder.Decoded take(String topic, String payload, boolean retained) {
    return facts.apply(
        topic,
        decoder.decode(topic, payload.getBytes(StandardCharsets.UTF_8), AT),
        new MqttConnection.Delivery(retained, false),
        AT);
  }

  @Test
  void retainedDelivery_entersRestored_aDevicesOwnWorseQualityStands() {
    assertThat(take("home/x", "1", true).samples()).isEmpty(); // not a point topic: rejected
    assertThat(take(TOPICS.point("boiler.flow"), "42", true).samples())
        .extracting(Sample::quality)
        .containsExactly(Quality.RESTORED);
    assertThat(take(TOPICS.point("boiler.flow"), "{\"quality\": \"bad\"}", true).samples())
        .extracting(Sample::quality)
        .containsExactly(Quality.BAD);
    assertThat(take(TOPICS.point("boiler.flow"), "42", false).samples())
        .extracting(Sample::quality)
        .containsExactly(Quality.LIVE);
  }

  @Test
  void zigbee2mqttLastSeen_isTheDeviceTime_olderThanStaleAfterIsStale_forEveryPointOfTheTopic() {
    assertThat(problems).isEmpty();
    var fresh =
        take(
            "zigbee2mqtt/hall",
            "{\"temperature\": 21, \"humidity\": 40, \"last_seen\": \""
                + AT.minusSeconds(5)
                + "\"}",
            false);
    assertThat(fresh.deviceTime()).contains(AT.minusSeconds(5));
    assertThat(fresh.samples()).extracting(Sample::quality).containsOnly(Quality.LIVE);
    assertThat(fresh.samples()).extracting(Sample::at).containsOnly(AT); // ordered by receipt

    var old =
        take(
            "zigbee2mqtt/hall",
            "{\"temperature\": 21, \"humidity\": 40, \"last_seen\":"
                + " \"2026-12-01T10:59:00+01:00\"}",
            false);
    // 10:59+01:00 is 09:59Z, 60 s before: over hall.temp's 30 s; humidity has no stale_after.
    assertThat(old.samples())
        .extracting(Sample::pointId, Sample::quality)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("hall.temp", Quality.STALE),
            org.assertj.core.groups.Tuple.tuple("hall.humidity", Quality.LIVE));
  }

  @Test
  void anHourAhead_isRejectedWithItsReason_withinTheSkewIsTaken() {
    var ahead =
        take(
            "zigbee2mqtt/hall",
            "{\"temperature\": 21, \"last_seen\": \"" + AT.plus(Duration.ofHours(1)) + "\"}",
            false);
    assertThat(ahead.samples()).isEmpty();
    assertThat(ahead.rejections())
        .anySatisfy(
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.FUTURE_TIMESTAMP);
              assertThat(r.pointId()).contains("hall.temp");
              assertThat(r.message()).contains("3600 s ahead", "max-future-skew");
            });
    assertThat(
            take(
                    TOPICS.point("boiler.flow"),
                    "{\"value\": 1, \"ts\": \"" + AT.plusSeconds(30) + "\"}",
                    false)
                .samples())
        .hasSize(1);
  }

  @Test
  void epochSecondsAndMilliseconds() {
    var s =
        take(
            "tele/plug/SENSOR",
            "{\"ENERGY\": {\"Power\": 12}, \"Epoch\": " + (AT.getEpochSecond() - 120) + "}",
            false);
    assertThat(s.deviceTime()).contains(AT.minusSeconds(120));
    assertThat(s.samples()).extracting(Sample::quality).containsExactly(Quality.STALE);
    var ms = take("meter/ms", "{\"v\": 3, \"t\": " + AT.toEpochMilli() + "}", false);
    assertThat(ms.deviceTime()).contains(AT);
  }

  @Test
  void aMappedTimestampMissingOrWithoutAnOffset_costsThePayloadItsSamples_sayingWhy() {
    var local = take("tele/probe/SENSOR", "{\"T\": 41, \"Time\": \"2026-12-01T10:00:00\"}", false);
    assertThat(local.samples()).isEmpty();
    assertThat(local.rejections())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.BAD_TIMESTAMP);
              assertThat(r.message()).contains("$.Time", "offset");
            });
    var missing = take("zigbee2mqtt/hall", "{\"temperature\": 21, \"humidity\": 40}", false);
    assertThat(missing.rejections())
        .extracting(IngestDecoder.Rejection::reason)
        .containsOnly(RejectReason.BAD_TIMESTAMP);
    assertThat(missing.rejections().get(0).message()).contains("no timestamp at $.last_seen");
  }

  @Test
  void waitingSince_isTheDeviceTime_ofLiveSamplesOfPointsWithAStaleAfter() {
    var plug =
        take(
            "tele/plug/SENSOR",
            "{\"ENERGY\": {\"Power\": 12}, \"Epoch\": " + (AT.getEpochSecond() - 20) + "}",
            false);
    assertThat(facts.waitingSince(plug)).contains(AT.minusSeconds(20));
    var own =
        take(
            TOPICS.point("boiler.flow"),
            "{\"value\": 1, \"ts\": \"" + AT.minusSeconds(10) + "\"}",
            false);
    assertThat(facts.waitingSince(own)).contains(AT.minusSeconds(10));
    // Stale on arrival: the reading is old, the queue need not be long.
    var old =
        take(
            TOPICS.point("boiler.flow"),
            "{\"value\": 1, \"ts\": \"" + AT.minusSeconds(90) + "\"}",
            false);
    assertThat(facts.waitingSince(old)).isEmpty();
    // No stale_after: nothing says how long its readings may wait.
    var meter =
        take("meter/ms", "{\"v\": 3, \"t\": " + AT.minusSeconds(3600).toEpochMilli() + "}", false);
    assertThat(facts.waitingSince(meter)).isEmpty();
  }

  @Test
  void noTimestamp_isReceiptTime_asBefore() {
    var d = take(TOPICS.point("boiler.flow"), "42", false);
    assertThat(d.deviceTime()).isEqualTo(Optional.empty());
    assertThat(d.samples()).extracting(Sample::quality).containsExactly(Quality.LIVE);
  }
}
