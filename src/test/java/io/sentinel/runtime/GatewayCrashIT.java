package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 5's crash test, on the packaged application: the gateway process is SIGKILLed while a
 * device publishes at QoS 1. The gateway acknowledges a message to the broker only once the pass
 * that took it is durable in its journal, and its session is persistent (same client id, clean
 * session off), so after a restart every sample the device published is in the observations table,
 * exactly once: a message logged but not yet acknowledged when the gateway died is delivered again,
 * matched against the log's tail after the last acknowledgement mark, acknowledged and not logged a
 * second time (docs/live.md). A rule whose input was live before the crash commands nothing on the
 * restored value; it commands again once a live sample arrives.
 *
 * <p>Uses a Mosquitto of its own configured as a gateway's broker (PackagedGateway; else Moquette)
 * and PostgreSQL (127.0.0.1:5432, else an embedded one) and {@code
 * target/quarkus-app/quarkus-run.jar} (Failsafe runs it after package).
 */
class GatewayCrashIT {
  private static final int SAMPLES = 15_000;

  /** The device's rate, samples a second (issue 24): paced, not as fast as it can. */
  private static final int RATE = 5_000;

  /** Published by the device and not yet acknowledged to it by the broker, at most. */
  private static final int DEVICE_WINDOW = 5_000;

  private static final int KILL_AT = 6_000;
  private static final String LOAD = "crash.load";
  private static final String TEMP = "crash.temp";
  private static final String VALVE = "crash.valve";

  private TestDatabase db;
  private PackagedGateway rig;
  private BrokerClient recorder;
  private BrokerClient device;
  private Process gateway;

  @BeforeEach
  void setUp() {
    rig =
        PackagedGateway.valveWhileWarm(
            "crash", 100_000, Duration.ofSeconds(85), "status", "commands/#", "claims/#", "self/#");
    recorder = rig.recorder;
    device = rig.device;
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    rig.closeWith(db);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void sigkillUnderLoad_losesNoAcknowledgedSample_andCommandsNothingOnRestoredValues()
      throws Exception {
    long started = System.nanoTime();
    gateway = startGateway();
    awaitOnline(1);

    // The rule's input live before the crash: the valve is commanded open.
    device.publish(topic("points/" + TEMP), "50");
    await(
        "valve commanded before the crash",
        () -> !recorder.on(topic("commands/" + VALVE)).isEmpty());

    AtomicInteger published = new AtomicInteger();
    // While the gateway is down the device holds off, as the broker's queue for the gateway's
    // session (Mosquitto: max_queued_messages, 1,000 by default) would drop past its limit.
    java.util.concurrent.atomic.AtomicBoolean gatewayDown =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread publisher = publisher(published, gatewayDown);
    long loadStarted = System.nanoTime();
    publisher.start();

    await("load under way", () -> published.get() >= KILL_AT);
    gatewayDown.set(true);
    gateway.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no flush, no clean disconnect
    int publishedAtKill = published.get();
    double rateAtKill = publishedAtKill / ((System.nanoTime() - loadStarted) / 1e9);
    assertThat(gateway.waitFor(5, TimeUnit.SECONDS)).isTrue();
    long loggedAtKill = logged();
    int valveCommandsBefore = recorder.on(topic("commands/" + VALVE)).size();
    long maxSeqAtKill = db.count("SELECT coalesce(max(seq), 0) FROM observations");
    assertThat(publishedAtKill).as("killed mid-stream").isLessThan(SAMPLES);
    // The device's achieved rate is printed, not asserted: on a machine shared with other builds
    // the test's own publisher cannot always keep 5,000/s.

    gateway = startGateway();
    awaitOnline(2);
    gatewayDown.set(false);
    // Every sample the device published (each PUBACKed to it by the broker) is logged.
    awaitEverySampleLogged(publisher, published);
    assertThat(db.count("SELECT count(*) FROM dead_letters")).isZero();
    List<Long> values =
        db.longs(
            "SELECT DISTINCT value_num::bigint FROM observations WHERE point_id = '"
                + LOAD
                + "' ORDER BY 1");
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < SAMPLES; i++) {
      expected.add(i);
    }
    assertThat(values).isEqualTo(expected);
    long rows = db.count("SELECT count(*) FROM observations WHERE point_id = '" + LOAD + "'");
    assertThat(rows)
        .as("every sample once: none the broker delivered again after the kill logged twice")
        .isEqualTo(SAMPLES);
    // The temperature came back restored, not live: no valve command in any pass since.
    Thread.sleep(500);
    assertThat(recorder.on(topic("commands/" + VALVE))).hasSize(valveCommandsBefore);
    assertThat(db.count("SELECT count(*) FROM commands WHERE point_id = '" + VALVE + "'"))
        .isEqualTo(valveCommandsBefore);

    // A live sample: the rule leaves warmup and commands again.
    device.publish(topic("points/" + TEMP), "51");
    await(
        "valve commanded on a live sample",
        () -> recorder.on(topic("commands/" + VALVE)).size() > valveCommandsBefore);
    assertThat(recorder.last(topic("commands/" + VALVE)).orElseThrow().json().getValue("value"))
        .isEqualTo(true);

    System.out.printf(
        "GatewayCrashIT (%s, %d/s offered, %.0f/s up to the kill): killed after %d published, %d"
            + " logged (max seq %d); after restart %d distinct samples in %d rows (%d logged"
            + " twice); %.1f s%n",
        rig.mqtt,
        RATE,
        rateAtKill,
        publishedAtKill,
        loggedAtKill,
        maxSeqAtKill,
        values.size(),
        rows,
        rows - values.size(),
        (System.nanoTime() - started) / 1e9);
  }

  /**
   * The same process reconnects mid-stream: the link between it and the broker is reset twice under
   * load, and Mosquitto delivers again what it holds unacknowledged (taken, some durable, their
   * PUBACKs lost with the connection). Each repeat is matched against the messages taken on the
   * connection before and acknowledged once the original is durable (docs/live.md, "Messages
   * delivered again"). Nothing the device published is lost across the resets.
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void linkResetUnderLoad_theSameProcessLosesNothing_andMatchesWhatComesAgain() throws Exception {
    long started = System.nanoTime();
    try (SlowLink link = new SlowLink(rig.mqtt)) {
      gateway =
          rig.start(
              "",
              rig.restartable(0),
              Map.of(
                  "SENTINEL_DB_URL", db.configUrl(),
                  "SENTINEL_MQTT_VERSION", rig.mqttVersion(),
                  "SENTINEL_MQTT_URL", link.url()));
      awaitOnline(1);
      AtomicInteger published = new AtomicInteger();
      Thread publisher = publisher(published, new java.util.concurrent.atomic.AtomicBoolean());
      publisher.start();
      await("load under way", () -> published.get() >= KILL_AT);
      link.reset();
      awaitOnline(2);
      await("more load", () -> published.get() >= 2 * KILL_AT);
      link.reset();
      awaitOnline(3);
      awaitEverySampleLogged(publisher, published);
      long rows = db.count("SELECT count(*) FROM observations WHERE point_id = '" + LOAD + "'");
      String log = java.nio.file.Files.readString(java.nio.file.Path.of("target", "crash-1.log"));
      java.util.regex.Matcher repeats =
          java.util.regex.Pattern.compile("SEN-141 (\\d+) MQTT messages").matcher(log);
      List<Long> matched = new ArrayList<>();
      while (repeats.find()) {
        matched.add(Long.parseLong(repeats.group(1)));
      }
      System.out.printf(
          "GatewayCrashIT (%s, link reset twice under %d/s): %d rows for %d samples; repeats"
              + " matched at each reconnect: %s; %.1f s%n",
          rig.mqtt, RATE, rows, SAMPLES, matched, (System.nanoTime() - started) / 1e9);
      // At least once, not exactly: Mosquitto 2.0.11 (this machine's) was seen sending messages
      // again on the connection that had already taken and acknowledged them, after a resumed
      // session (inflight quota bugs, fixed in 2.0.13); no content match can tell those from new
      // ones (docs/live.md). The figures are printed.
      assertThat(rows).as("every sample at least once").isGreaterThanOrEqualTo(SAMPLES);
    }
  }

  /** The device: {@link #SAMPLES} at {@link #RATE}, holding off while {@code hold} is set. */
  private Thread publisher(
      AtomicInteger published, java.util.concurrent.atomic.AtomicBoolean hold) {
    java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(DEVICE_WINDOW);
    Thread publisher =
        new Thread(
            () -> {
              long t0 = System.nanoTime();
              for (int i = 0; i < SAMPLES; i++) {
                if (hold.get()) {
                  await("the gateway back", () -> !hold.get());
                  t0 = System.nanoTime() - (long) i * 1_000_000_000L / RATE;
                }
                long due = t0 + i * 1_000_000_000L / RATE;
                while (System.nanoTime() < due) {
                  java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
                try {
                  window.acquire();
                } catch (InterruptedException e) {
                  return;
                }
                device
                    .publishAsync(
                        topic("points/" + LOAD),
                        Integer.toString(i).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        false)
                    .whenComplete((ack, error) -> window.release());
                published.incrementAndGet();
              }
            },
            "crash-it-device");
    publisher.setDaemon(true);
    return publisher;
  }

  private void awaitEverySampleLogged(Thread publisher, AtomicInteger published)
      throws InterruptedException {
    publisher.join(rig.left().toMillis());
    assertThat(published.get()).isEqualTo(SAMPLES);
    try {
      await("every sample logged", () -> logged() == SAMPLES);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + logged() + " of " + SAMPLES, e);
    }
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        rig.restartable(0),
        Map.of("SENTINEL_DB_URL", db.configUrl(), "SENTINEL_MQTT_VERSION", rig.mqttVersion()));
  }

  private void awaitOnline(int times) {
    rig.awaitOnline(gateway, times);
  }

  private long logged() {
    return db.count(
        "SELECT count(DISTINCT value_num) FROM observations WHERE point_id = '" + LOAD + "'");
  }

  private String topic(String rest) {
    return rig.topic(rest);
  }

  private void await(String what, BooleanSupplier condition) {
    rig.await(what, condition);
  }
}
