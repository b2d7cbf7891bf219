package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * 10,000 malformed and hostile payloads (seeded, so a failure repeats) while valid samples flow:
 * the gateway keeps running, the valid samples' commands are exactly the expected ones, and every
 * hostile payload is counted as one rejection.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/zones"),
      @ResourceArg(name = "site-prefix", value = "fuzz")
    })
class HostilePayloadTest {
  private static final int HOSTILE = 10_000;
  private static final int VALID_EVERY = 100;
  private static final int WINDOW = 400;
  private static final String ZONE5_TOPIC = "sentinel-test/zigbee/zone-5";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;
  @Inject Gateway gateway;

  private final Random random = new Random(20261130);

  @Test
  void
      tenThousandHostilePayloads_whileValidTrafficFlows_validCommandsExactAndEveryRejectionCounted() {
    await().atMost(Duration.ofSeconds(10)).until(gateway::connected);
    assertThat(gateway.rejectedTotal()).isZero();
    BrokerClient device = broker.client("fuzzer");
    Map<Integer, List<Boolean>> expected = new HashMap<>();
    Map<Integer, Boolean> warm = new HashMap<>();
    List<CompletableFuture<?>> sent = new ArrayList<>();
    int valid = 0;
    for (int i = 0; i < HOSTILE; i++) {
      if (i % VALID_EVERY == 0) {
        int zone = valid % 5 + 1;
        boolean hot = (valid / 5) % 2 == 1;
        sent.add(validSample(device, zone, hot));
        Boolean before = warm.put(zone, hot);
        if (before != null && before != hot) {
          expected.computeIfAbsent(zone, z -> new ArrayList<>()).add(hot);
        }
        valid++;
      }
      String[] hostile = hostile();
      byte[] payload =
          hostile[1].equals("INVALID-UTF8")
              ? new byte[] {'"', (byte) 0xC3, (byte) 0x28, '"'}
              : hostile[1].getBytes(StandardCharsets.UTF_8);
      sent.add(device.publishAsync(hostile[0], payload, false));
      if ((i + 1) % WINDOW == 0) {
        // A broker queues a bounded number of messages per subscriber (Mosquitto: 1000) and drops
        // the rest: a flood faster than its subscribers read (the gateway, and this test's
        // recorder of the gateway's events) is lost in the broker. The fuzzer keeps within that.
        int published = i + 1;
        String events = broker.topic("events/ingest-rejected");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    gateway.rejectedTotal() >= published
                        && broker.recorder().on(events).size() >= published);
      }
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(gateway.rejectedTotal()).isEqualTo(HOSTILE));
    for (int zone = 1; zone <= 5; zone++) {
      List<Boolean> want = expected.get(zone);
      String topic = broker.topic("commands/zone." + zone + ".vent");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> broker.recorder().on(topic).size() >= want.size());
      List<JsonObject> got =
          broker.recorder().on(topic).stream().map(BrokerClient.Received::json).toList();
      assertThat(got).extracting(c -> c.getValue("value")).as("zone %d", zone).isEqualTo(want);
      assertThat(got).extracting(c -> c.getString("command_id")).doesNotHaveDuplicates();
    }
    assertThat(gateway.running()).isTrue();
    assertThat(gateway.connected()).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> broker.recorder().on(broker.topic("events/ingest-rejected")).size() >= HOSTILE);
    device.close();
  }

  /** A valid sample in one of the accepted shapes; zone 5 comes from its third-party topic. */
  private CompletableFuture<?> validSample(BrokerClient device, int zone, boolean hot) {
    double celsius = hot ? 31 + random.nextDouble() : 25 - random.nextDouble();
    String payload;
    String topic = broker.topic("points/zone." + zone + ".temp");
    if (zone == 5) {
      topic = ZONE5_TOPIC;
      payload = "{\"temperature\": " + celsius + ", \"linkquality\": 87}";
    } else if (zone == 4) {
      payload = "{\"value\": " + (celsius * 9 / 5 + 32) + ", \"unit\": \"degF\"}";
    } else if (zone == 3) {
      payload =
          "{\"value\": " + celsius + ", \"quality\": \"live\", \"ts\": \"2026-11-30T10:00:00Z\"}";
    } else {
      payload = Double.toString(celsius);
    }
    return device.publishAsync(topic, payload.getBytes(StandardCharsets.UTF_8), false);
  }

  /** A topic and a payload that the gateway must reject with exactly one counted reason. */
  private String[] hostile() {
    String temp = broker.topic("points/zone." + (random.nextInt(4) + 1) + ".temp");
    String full = "{\"value\": 21.5, \"quality\": \"live\", \"ts\": \"2026-11-30T10:00:00Z\"}";
    return switch (random.nextInt(16)) {
      case 0 -> new String[] {temp, "xX}]:,@#".charAt(random.nextInt(8)) + noise(64)};
      case 1 -> new String[] {temp, full.substring(0, 1 + random.nextInt(full.length() - 1))};
      case 2 -> new String[] {temp, "\"" + noise(20).replace("\"", "").replace("\\", "") + "\""};
      case 3 ->
          new String[] {
            temp,
            pick("true", "[1,2]", "{\"value\": [21]}", "{\"value\": {\"x\": 1}}", "null", "false")
          };
      case 4 -> new String[] {broker.topic("points/zone.9" + random.nextInt(1000) + ".temp"), "20"};
      case 5 ->
          new String[] {
            temp, "{\"value\": 1, \"pad\": \"" + "a".repeat(16_400 + random.nextInt(4000)) + "\"}"
          };
      case 6 ->
          new String[] {
            temp,
            pick("{\"value\": 20, \"unit\": \"bar\"}", "{\"value\": 20, \"unit\": \"parsec\"}")
          };
      case 7 ->
          new String[] {
            temp,
            pick(
                "{\"value\": 20, \"quality\": \"restored\"}",
                "{\"value\": 20, \"ts\": \"yesterday\"}",
                "{\"vaule\": 20}",
                "{\"quality\": \"live\"}",
                "{}")
          };
      case 8 -> {
        int depth = 1 + random.nextInt(3000);
        yield new String[] {temp, "[".repeat(depth) + "]".repeat(depth)};
      }
      case 9 ->
          new String[] {temp, pick("NaN", "Infinity", "-Infinity", "1e999", "{\"value\": -1e400}")};
      case 10 -> new String[] {broker.topic("points/zone.mode"), "INVALID-UTF8"};
      case 11 -> new String[] {temp, ""};
      case 12 ->
          new String[] {
            ZONE5_TOPIC, pick("{\"temp\": 20}", "[20]", "{\"temperature\": \"hot\"}", "20")
          };
      case 13 -> new String[] {broker.topic("points/zone.1.vent"), "true"};
      case 14 -> new String[] {broker.topic("points/zone.mode"), "\"turbo\""};
      default ->
          new String[] {
            broker.topic("points/zone.mode"),
            "\"\\u0000\\u0007" + noise(30).replace("\"", "").replace("\\", "") + "\""
          };
    };
  }

  private String pick(String... options) {
    return options[random.nextInt(options.length)];
  }

  private String noise(int max) {
    StringBuilder b = new StringBuilder();
    int n = random.nextInt(max + 1);
    for (int i = 0; i < n; i++) {
      b.append((char) (0x20 + random.nextInt(0x5f)));
    }
    return b.toString();
  }
}
