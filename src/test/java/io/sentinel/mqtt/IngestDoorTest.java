package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.YamlRegistry;
import io.sentinel.point.Registry;
import io.sentinel.point.Value;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 13's cases at the ingest door, each refused with its own reason and a message naming the
 * field (and never echoing a control character), while the same payload without the flaw is taken.
 */
class IngestDoorTest {
  private static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");
  private static final Topics TOPICS = new Topics("door");
  private static final Registry REGISTRY =
      YamlRegistry.of(
          """
          points:
            line.pressure: { type: number, unit: Pa, direction: in }
            label: { type: string, direction: in }
            hall.temp: { type: number, unit: degC, direction: in,
                         source: { mqtt: { topic: zigbee/hall, json_path: $.t } } }
          """);

  private final IngestDecoder decoder =
      IngestDecoder.of(REGISTRY, TOPICS, 64 * 1024, new ArrayList<>());

  private IngestDecoder.Decoded own(String point, byte[] payload) {
    return decoder.decode(TOPICS.point(point), payload, AT);
  }

  private IngestDecoder.Decoded own(String point, String payload) {
    return own(point, payload.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] bytes(int... b) {
    byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return out;
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // overlong "/" (C0 AF), a code point over U+10FFFF (F4 90 80 80), an encoded surrogate
        "overlong      | 22 C0 AF 22",
        "above-10FFFF  | 22 F4 90 80 80 22",
        "surrogate     | 22 ED A0 80 22",
        "truncated     | 22 E2 82 22",
      })
  void notStrictUtf8_isABadEncoding_namingTheByte(String name, String hex) {
    String[] parts = hex.split(" ");
    int[] b = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      b[i] = Integer.parseInt(parts[i], 16);
    }
    var d = own("label", bytes(b));
    assertThat(d.samples()).isEmpty();
    assertThat(d.rejections())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.BAD_ENCODING);
              assertThat(r.message()).contains("not strict UTF-8").contains("at byte 1");
            });
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "CONTROL_CHARACTER | {\"value\": \"a\\u0000b\"}                   | $.value",
        "CONTROL_CHARACTER | {\"value\": \"\\u001b[31mred\"}             | U+001B",
        "CONTROL_CHARACTER | {\"value\": \"\\ud800\"}                      | lone surrogate",
        "CONTROL_CHARACTER | {\"value\": \"x\", \"q\\u0000\": 1}           | a key",
        "CONTROL_CHARACTER | {\"value\": 1, \"x\": [1, {\"y\": \"\\u0007\"}]} | $.x[1].y",
        "CONTROL_CHARACTER | {\"value\": 1, \"x\": [{\"k\\u0007\": 1}]}    | $.x[0] (a key)",
        "NOT_FINITE        | {\"value\": 1, \"x\": {\"y\": [2, -1e999]}}   | $.x.y[1]",
        "DUPLICATE_KEY     | {\"value\": \"a\", \"value\": \"b\"}          | value",
        "TOO_DEEP          | {\"value\": 1, \"x\": DEEP}                   | deeper than 64",
        "NOT_FINITE        | {\"value\": 1e400}                           | 1e400",
        "BAD_TIMESTAMP     | {\"value\": \"x\", \"ts\": \"+294277-01-01T00:00:00Z\"} | ts",
        "BAD_TIMESTAMP     | {\"value\": \"x\", \"ts\": \"1970-01-01T00:00:00Z\"}    | is the device's clock set",
        "BAD_TIMESTAMP     | {\"value\": \"x\", \"ts\": \"2026-12-02T10:00:01Z\"}    | ts",
      })
  void hostileJson_isRefusedWithItsReason(RejectReason reason, String payload, String says) {
    String body = payload.replace("DEEP", "[".repeat(100) + "]".repeat(100));
    var d = own("label", body);
    assertThat(d.samples()).isEmpty();
    assertThat(d.rejections())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(reason);
              assertThat(r.message())
                  .contains(says)
                  .doesNotContain("\u0000")
                  .doesNotContain("\u001b");
              assertThat(r.topic()).isEqualTo(TOPICS.point("label"));
            });
  }

  @Test
  void aDeviceTimeInsideTheWindow_isKept() {
    var d = own("label", "{\"value\": \"x\", \"ts\": \"2026-11-30T09:00:00Z\"}");
    assertThat(d.rejections()).isEmpty();
    assertThat(d.deviceTime()).contains(Instant.parse("2026-11-30T09:00:00Z"));
  }

  @Test
  void finiteInBar_butInfiniteInPa_isRefusedAtTheDoor_notHandedToThePass() {
    var d = own("line.pressure", "{\"value\": 1e304, \"unit\": \"bar\"}");
    assertThat(d.samples()).isEmpty();
    assertThat(d.rejections())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.NOT_FINITE);
              assertThat(r.pointId()).contains("line.pressure");
              assertThat(r.message()).contains("not a finite number in");
            });
    // the same value in range converts and is taken
    assertThat(own("line.pressure", "{\"value\": 2, \"unit\": \"bar\"}").samples())
        .singleElement()
        .satisfies(s -> assertThat(s.value()).isEqualTo(Value.of(200_000.0)));
  }

  @Test
  void twentyThousandLevels_isTooDeep_inBoundedTime() {
    String deep = "[".repeat(20_000) + "]".repeat(20_000);
    long t0 = System.nanoTime();
    var d = own("label", deep);
    assertThat(System.nanoTime() - t0).isLessThan(2_000_000_000L);
    assertThat(d.rejections())
        .extracting(IngestDecoder.Rejection::reason)
        .containsExactly(RejectReason.TOO_DEEP);
  }

  @Test
  void thirdPartyTopics_passTheSameDoor() {
    var d =
        decoder.decode(
            "zigbee/hall", "{\"t\": 21, \"t\": 22}".getBytes(StandardCharsets.UTF_8), AT);
    assertThat(d.rejections())
        .extracting(IngestDecoder.Rejection::reason)
        .containsExactly(RejectReason.DUPLICATE_KEY);
  }

  @Test
  void everyDoorFlaw_isCountedUnderAnIngestReasonOfTheSameName() {
    for (io.sentinel.door.Flaw f : io.sentinel.door.Flaw.values()) {
      assertThat(RejectReason.of(f).wireName()).isEqualTo(f.wireName());
    }
  }
}
