package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.YamlRegistry;
import io.sentinel.point.Registry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where inputs may come from (issue 17): on the gateway's own topic an output, a derived point, a
 * GPIO-sourced input (while pins are read) and a mapped point are each refused with a reason of
 * their own; the mapped point still takes its mapped topic, and a GPIO input takes the own topic
 * when no pins are read here.
 */
class SourcePolicyTest {
  private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");
  private static final Topics TOPICS = new Topics("home");
  private static final Registry REGISTRY =
      YamlRegistry.of(
          """
          points:
            hall.temp: { type: number, direction: in,
                         source: { mqtt: { topic: zigbee2mqtt/hall, json_path: $.temperature } } }
            door.button: { type: bool, direction: in, source: { gpio: { pin: 5 } } }
            pump: { type: bool, direction: out }
            tank.level: { type: number, direction: in }
          """);

  private static IngestDecoder decoder(boolean pinsRead) {
    return IngestDecoder.of(
        REGISTRY, new SourcePolicy(Set.of("tank.low"), pinsRead), TOPICS, 1024, new ArrayList<>());
  }

  private static IngestDecoder.Decoded own(IngestDecoder d, String point, String payload) {
    return d.decode(TOPICS.pointPrefix() + point, payload.getBytes(StandardCharsets.UTF_8), AT);
  }

  private static String reason(IngestDecoder.Decoded d) {
    assertThat(d.samples()).isEmpty();
    return d.rejections().get(0).reason().wireName();
  }

  @Test
  void onTheOwnTopic_eachPointFromElsewhereIsRefusedWithItsReason() {
    IngestDecoder d = decoder(true);
    assertThat(reason(own(d, "pump", "true"))).isEqualTo("not-an-input");
    assertThat(reason(own(d, "tank.low", "true"))).isEqualTo("derived-point");
    IngestDecoder.Decoded gpio = own(d, "door.button", "true");
    assertThat(reason(gpio)).isEqualTo("gpio-sourced");
    assertThat(gpio.rejections().get(0).message()).contains("GPIO pin 5");
    IngestDecoder.Decoded mapped = own(d, "hall.temp", "21");
    assertThat(reason(mapped)).isEqualTo("wrong-topic");
    assertThat(mapped.rejections().get(0).pointId()).contains("hall.temp");
    assertThat(mapped.rejections().get(0).message()).contains("zigbee2mqtt/hall only");
    assertThat(own(d, "tank.level", "3").samples()).hasSize(1);
  }

  @Test
  void theMappedTopicFeedsItsPoint_andWithoutPinsTheOwnTopicStandsInForAPin() {
    IngestDecoder d = decoder(false);
    assertThat(
            d.decode(
                    "zigbee2mqtt/hall",
                    "{\"temperature\": 21}".getBytes(StandardCharsets.UTF_8),
                    AT)
                .samples())
        .hasSize(1);
    assertThat(own(d, "door.button", "true").samples()).hasSize(1);
    assertThat(reason(own(d, "hall.temp", "21"))).isEqualTo("wrong-topic");
  }
}
