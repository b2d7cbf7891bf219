package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An overloaded gateway holds a bounded intake and does not die (docs/runtime.md, "Overload"): the
 * packaged gateway on the edge JVM (48 MB heap) is flooded at QoS 1 as fast as a device can
 * publish, far past what it takes, with the broker's Receive Maximum at its default of 65,534. At
 * its intake bound ({@code sentinel.ingest.max-held}, small here so that the flood surely reaches
 * it on any machine) it stops reading from the broker, which holds the rest; it says so ({@code
 * SEN-045}, the event {@code ingest-overloaded}, the self point {@code ingest.overloaded}); it
 * never runs out of memory; and every sample is logged exactly once, none before it was durable.
 */
class IngestOverloadIT {
  private static final int SAMPLES = 60_000;

  /** The device's QoS 1 publishes awaiting the broker's acknowledgement, at most. */
  private static final int DEVICE_WINDOW = 20_000;

  private static final int MAX_HELD = 1_500;
  private static final String LOAD = "overload.load";

  private TestDatabase db;
  private PackagedGateway rig;

  @BeforeEach
  void setUp() {
    rig =
        PackagedGateway.valveWhileWarm(
            "overload", 10_000_000, Duration.ofSeconds(150), "status", "events/#", "self/#");
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    rig.closeWith(db);
  }

  @Test
  @Timeout(value = 160, unit = TimeUnit.SECONDS)
  void aFlood_pausesReadingAtTheIntakeBound_saysSo_andLosesNothing() throws Exception {
    long started = System.nanoTime();
    Process gateway = startGateway();
    rig.awaitOnline(gateway, 1);

    AtomicInteger published = new AtomicInteger();
    Semaphore window = new Semaphore(DEVICE_WINDOW);
    for (int i = 0; i < SAMPLES; i++) {
      window.acquire();
      rig.device
          .publishAsync(
              rig.topic("points/" + LOAD),
              Integer.toString(i).getBytes(StandardCharsets.UTF_8),
              false)
          .whenComplete((ack, error) -> window.release());
      published.incrementAndGet();
    }
    double floodSeconds = (System.nanoTime() - started) / 1e9;
    rig.await("every sample logged", () -> !gateway.isAlive() || logged() >= SAMPLES);
    assertThat(gateway.isAlive()).as("the gateway is alive after the flood").isTrue();

    assertThat(logged()).as("every sample logged").isEqualTo(SAMPLES);
    assertThat(db.count("SELECT count(*) FROM observations WHERE point_id = '" + LOAD + "'"))
        .as("each once")
        .isEqualTo(SAMPLES);
    assertThat(db.count("SELECT count(*) FROM dead_letters")).isZero();

    // Said: the event and the self point on MQTT, the event in control_events.
    rig.await(
        "ingest-overloaded published",
        () -> !rig.recorder.on(rig.topic("events/ingest-overloaded")).isEmpty());
    assertThat(
            rig.recorder.on(rig.topic("self/ingest.overloaded")).stream()
                .anyMatch(r -> r.text().contains("true")))
        .isTrue();
    rig.await(
        "ingest-overload-ended published",
        () -> !rig.recorder.on(rig.topic("events/ingest-overload-ended")).isEmpty());
    rig.await(
        "the overload in control_events",
        () -> db.count("SELECT count(*) FROM control_events WHERE kind = 'ingest-overloaded'") > 0);

    String log = Files.readString(Path.of("target", "overload-1.log"));
    assertThat(log).contains("SEN-045").contains("SEN-046").doesNotContain("OutOfMemoryError");
    System.out.printf(
        "IngestOverloadIT: %d samples published in %.1f s (%.0f/s), all logged once; %d overload"
            + " events; %.1f s%n",
        published.get(),
        floodSeconds,
        SAMPLES / floodSeconds,
        rig.recorder.on(rig.topic("events/ingest-overloaded")).size(),
        (System.nanoTime() - started) / 1e9);
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        withBound(),
        Map.of("SENTINEL_DB_URL", db.configUrl(), "SENTINEL_MQTT_VERSION", rig.mqttVersion()));
  }

  private java.util.List<String> withBound() {
    java.util.List<String> options = new java.util.ArrayList<>(PackagedGateway.edgeOptions());
    options.addAll(rig.restartable(0));
    options.add("-Dsentinel.ingest.max-held=" + MAX_HELD);
    return options;
  }

  private long logged() {
    return db.count(
        "SELECT count(DISTINCT value_num) FROM observations WHERE point_id = '" + LOAD + "'");
  }
}
