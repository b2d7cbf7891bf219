package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14's outage, on the packaged application (docs/live.md, "What shows it"): the gateway
 * process stopped for two minutes while a device keeps publishing QoS 1 into the gateway's
 * persistent session, thousands of samples that take the tank's level across both rules' thresholds
 * and back. After the restart (same client id, same journal and database): every queued sample is
 * taken and logged, none is commanded on, a {@code deadline(30s)} rule does not fall into its
 * input-loss policy although the drain outlasts its deadline, the staleness watchdog does not age a
 * point whose next sample is still in the queue, and {@code ingest-lagging} / {@code
 * ingest-caught-up} (events, self point, {@code /q/metrics}) bracket the drain. A live crossing
 * after the drain is commanded, so the silence before it is the drain's, not a dead rule.
 *
 * <p>The drain has to outlast the deadline to show anything: on this machine the gateway takes the
 * backlog in well under a second. So the gateway reaches its broker through a {@link SlowLink} that
 * passes the broker's PUBLISHes at a pace that makes the drain last {@link #DRAIN}, as a slow
 * uplink would, and the test asserts the drain ran past the deadline before judging the rule. Uses
 * PackagedGateway's Mosquitto (max_queued_messages 100,000, as docs/runtime.md asks of a site's
 * broker), else Moquette, and PostgreSQL (else an embedded one).
 */
class GatewayOutageIT {
  private static final Duration OUTAGE = Duration.ofSeconds(120);
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Duration STALE_AFTER = Duration.ofSeconds(3);

  /** What the link's pace makes the drain last at least: past the deadline, with a margin. */
  private static final Duration DRAIN = Duration.ofSeconds(32);

  private static final String LEVEL = "tank.level";
  private static final String INLET = "tank.inlet";
  private static final String PUMP = "tank.pump";
  private static final String LAMP = "tank.alarm-lamp";
  private static final List<String> RULES = List.of("tank-pump", "tank-alarm");

  private TestDatabase db;
  private PackagedGateway rig;
  private SlowLink link;
  private Process gateway;
  private int httpPort;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeEach
  void setUp() throws IOException {
    rig =
        new PackagedGateway(
            "outage",
            """
            points:
              tank.level: { type: number, unit: "%", direction: in, range: [0, 100] }
              tank.inlet: { type: number, unit: degC, direction: in, range: [0, 100],
                            stale_after: 3s }
              tank.pump: { type: bool, direction: out, release_value: false }
              tank.alarm-lamp: { type: bool, direction: out, release_value: false }
            """,
            Map.of(
                "tank.yaml",
                """
                - id: tank-pump
                  band: automation
                  inputs: { l: tank.level }
                  when: l.value > 80
                  claims: [ { point: tank.pump, value: true } ]
                  on_input_loss: release
                  warmup: all_inputs_live
                - id: tank-alarm
                  band: automation
                  inputs: { l: tank.level }
                  when: l.value > 95
                  claims: [ { point: tank.alarm-lamp, value: true } ]
                  on_input_loss: { assert: true }
                  warmup: deadline(30s)
                """),
            Duration.ofSeconds(250),
            true,
            "status",
            "commands/#",
            "events/#",
            "self/#");
    // Remembers the drained history: on above 90 %, off only below 25 %.
    java.nio.file.Files.writeString(
        rig.siteDir().resolve("derived.yaml"),
        """
        derived:
          tank.high: { kind: hysteresis, of: tank.level, on_above: 90, off_below: 25 }
        """);
    link = new SlowLink(rig.mqtt);
    db = TestDatabase.create();
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      httpPort = s.getLocalPort();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      rig.close();
    } finally {
      link.close();
      db.close();
    }
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void downTwoMinutes_theDrainCommandsNothing_passesTheDeadlineWithoutInputLoss_bracketedByLag()
      throws Exception {
    long began = System.nanoTime();
    gateway = startGateway();
    rig.awaitOnline(gateway, 1);
    rig.device.publish(topic("points/" + LEVEL), "50");
    rig.await("both rules deciding before the outage", () -> leftWarmup(Instant.MIN).size() == 2);
    rig.await("the level below the high mark", () -> Boolean.FALSE.equals(value("tank.high")));

    // The outage: the process stopped (a clean stop), the device publishing on at QoS 1.
    gateway.destroy();
    assertThat(gateway.waitFor(30, TimeUnit.SECONDS)).as("the gateway stopped").isTrue();
    Instant stopped = Instant.now();
    OutageDevice device =
        new OutageDevice(rig.device, topic("points/" + LEVEL), topic("points/" + INLET));
    device.start();
    OutageDevice.sleepUntil(stopped.plus(OUTAGE));
    int queued = device.outageOver();
    Instant restarted = Instant.now();
    assertThat(Duration.between(stopped, restarted)).isGreaterThanOrEqualTo(OUTAGE);
    assertThat(queued).as("thousands of samples queued").isGreaterThanOrEqualTo(5_000);
    link.publishesPerSecond((queued + 1) / (double) DRAIN.toSeconds());
    gateway = startGateway();
    rig.awaitOnline(gateway, 2);
    Instant started =
        received("status", restarted).stream()
            .filter(st -> "online".equals(st.getString("state")))
            .map(st -> Instant.parse(st.getString("started")))
            .findFirst()
            .orElseThrow();

    // The drain watched from outside: /q/metrics and the inlet's quality, every half second.
    List<Double> drainingGauge = new ArrayList<>();
    List<Instant> inletLive = new ArrayList<>();
    List<String> inletOther = new ArrayList<>();
    while (events("ingest-caught-up", restarted).isEmpty()) {
      assertThat(rig.left()).as("the drain ends within the budget").isPositive();
      get("/q/metrics")
          .ifPresent(m -> meter(m, "sentinel_ingest_draining").ifPresent(drainingGauge::add));
      Optional<String> q =
          get("/api/v1/points/" + INLET).map(p -> new JsonObject(p).getString("quality"));
      if (q.isPresent() && events("ingest-caught-up", restarted).isEmpty()) {
        if (q.get().equals("live")) {
          inletLive.add(Instant.now());
        } else if (!inletLive.isEmpty()) {
          inletOther.add(q.get());
        }
      }
      OutageDevice.sleepUntil(Instant.now().plusMillis(500));
    }
    JsonObject caughtUp = events("ingest-caught-up", restarted).get(0);
    rig.await("both rules out of warmup on fresh samples", () -> leftWarmup(restarted).size() == 2);
    device.stop();
    rig.await("the inlet stale once the drain is over", () -> "stale".equals(quality(INLET)));
    rig.await(
        "every queued sample logged",
        () -> outageRows(restarted, "count(DISTINCT value_num)") >= queued);
    rig.await(
        "both rules' warmup-left in the log",
        () ->
            db.count(
                    "SELECT count(*) FROM control_events WHERE kind = 'warmup-left' AND at >= '"
                        + restarted
                        + "'")
                >= RULES.size());

    // The drain outlasted the deadline: a deadline that ran on during it would have run out.
    Instant caughtAt = Instant.parse(caughtUp.getString("ts"));
    assertThat(Duration.between(started, caughtAt))
        .as("the drain ran past the rule's deadline from the engine's start")
        .isGreaterThan(DEADLINE.plusSeconds(1));

    // Every queued sample was taken, once, between ingest-lagging and ingest-caught-up.
    assertThat(outageRows(restarted, "count(DISTINCT value_num)")).isEqualTo(queued);
    List<List<String>> events =
        db.rows(
            "SELECT seq, kind, subject, message FROM control_events WHERE at >= '"
                + restarted
                + "' ORDER BY seq");
    List<List<String>> lag =
        events.stream()
            .filter(e -> List.of("ingest-lagging", "ingest-caught-up").contains(e.get(1)))
            .toList();
    assertThat(lag).extracting(e -> e.get(1)).containsExactly("ingest-lagging", "ingest-caught-up");
    assertThat(lag.get(0).get(3)).contains("backlog");
    long laggingSeq = Long.parseLong(lag.get(0).get(0));
    long caughtUpSeq = Long.parseLong(lag.get(1).get(0));
    assertThat(outageRows(restarted, "max(seq)")).isLessThan(caughtUpSeq);
    // The lag event is logged after the rows of the pass that raised it, the drain's first: only
    // that pass's samples may precede it, not a part of the drain taken as live.
    assertThat(outageRows(restarted, "count(*) FILTER (WHERE seq < " + laggingSeq + ")"))
        .isLessThan(queued / 100);
    assertThat(events("ingest-lagging", restarted)).hasSize(1);
    assertThat(events("ingest-caught-up", restarted)).hasSize(1);
    assertThat(selfLagging(restarted)).containsSubsequence(true, false).endsWith(false);
    assertThat(drainingGauge).as("sentinel_ingest_draining during the drain").contains(1.0);
    assertThat(meter(get("/q/metrics").orElseThrow(), "sentinel_ingest_draining")).contains(0.0);
    assertThat(meter(get("/q/metrics").orElseThrow(), "sentinel_ingest_backlog_samples_total"))
        .hasValueSatisfying(n -> assertThat(n).isGreaterThanOrEqualTo((double) queued));

    // No rule left warmup during the drain; the deadline rule left on its input, not its deadline.
    List<List<String>> left = events.stream().filter(e -> e.get(1).equals("warmup-left")).toList();
    assertThat(left).extracting(e -> e.get(2)).containsExactlyInAnyOrderElementsOf(RULES);
    assertThat(left)
        .allSatisfy(
            e -> {
              assertThat(Long.parseLong(e.get(0))).isGreaterThan(caughtUpSeq);
              assertThat(e.get(3)).contains("all inputs live").doesNotContain("deadline");
            });
    // Nothing commanded for the crossing while the gateway was down, nor on the lamp's input loss.
    assertThat(commandsSince(PUMP, restarted)).isEmpty();
    assertThat(commandsSince(LAMP, restarted)).isEmpty();
    assertThat(db.count("SELECT count(*) FROM decisions WHERE at >= '" + restarted + "'")).isZero();

    // The drained samples updated derived state in order: 96 % then 40 % leaves the mark on.
    assertThat(value("tank.high")).as("the hysteresis after the drain").isEqualTo(true);

    // The watchdog did not age the inlet while its next sample was still in the queue.
    assertThat(inletOther).as("the inlet's quality during the drain").isEmpty();
    assertThat(Duration.between(inletLive.get(0), inletLive.get(inletLive.size() - 1)))
        .as("the inlet seen live through the drain")
        .isGreaterThan(STALE_AFTER.multipliedBy(3));

    long rows = outageRows(restarted, "count(*)");
    // A crossing now, live, is commanded: the rules decide again.
    rig.device.publish(topic("points/" + LEVEL), "90");
    rig.await(
        "the pump commanded on a live crossing", () -> !commandsSince(PUMP, restarted).isEmpty());
    assertThat(commandsSince(PUMP, restarted).get(0).getValue("value")).isEqualTo(true);
    assertThat(commandsSince(LAMP, restarted)).isEmpty();

    Instant laggingAt = Instant.parse(events("ingest-lagging", restarted).get(0).getString("ts"));
    System.out.printf(
        "GatewayOutageIT (%s): down %d s, %d samples queued (%d failed to publish), drained in %.1f"
            + " s (link %.0f PUBLISH/s), caught up %.1f s after the engine's start, %d rows for"
            + " the %d samples; %.1f s in all%n",
        rig.mqtt,
        Duration.between(stopped, restarted).toSeconds(),
        queued,
        device.failed(),
        Duration.between(laggingAt, caughtAt).toMillis() / 1e3,
        (queued + 1) / (double) DRAIN.toSeconds(),
        Duration.between(started, caughtAt).toMillis() / 1e3,
        rows,
        queued,
        (System.nanoTime() - began) / 1e9);
    assertThat(device.failed()).isZero();
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        rig.gatewayOptions("-Dquarkus.http.port=" + httpPort),
        Map.of(
            "SENTINEL_MQTT_URL",
            link.url(),
            "SENTINEL_DB_URL",
            db.configUrl(),
            "SENTINEL_MQTT_VERSION",
            rig.embeddedBroker() ? "3" : "5"));
  }

  /** The rules whose warmup-left event arrived since {@code since}. */
  private List<String> leftWarmup(Instant since) {
    return events("warmup-left", since).stream()
        .map(e -> e.getString("subject"))
        .filter(RULES::contains)
        .distinct()
        .toList();
  }

  private List<JsonObject> events(String kind, Instant since) {
    return received("events/" + kind, since);
  }

  private List<JsonObject> commandsSince(String point, Instant since) {
    return received("commands/" + point, since);
  }

  private List<Boolean> selfLagging(Instant since) {
    return received("self/ingest.lagging", since).stream().map(s -> s.getBoolean("value")).toList();
  }

  private List<JsonObject> received(String rest, Instant since) {
    return rig.recorder.on(topic(rest)).stream()
        .filter(r -> !r.at().isBefore(since) && r.payload().length > 0)
        .map(BrokerClient.Received::json)
        .toList();
  }

  /** {@code what} over the outage's samples as the restarted gateway logged them. */
  private long outageRows(Instant restarted, String what) {
    // The outage's levels are 40 and above; the fresh ones after the restart are 30.x.
    return db.count(
        "SELECT coalesce("
            + what
            + ", 0) FROM observations WHERE point_id = '"
            + LEVEL
            + "' AND value_num >= 40 AND received_at >= '"
            + restarted
            + "'");
  }

  private Object value(String point) {
    return get("/api/v1/points/" + point)
        .map(p -> new JsonObject(p).getValue("value"))
        .orElse(null);
  }

  private String quality(String point) {
    return get("/api/v1/points/" + point)
        .map(p -> new JsonObject(p).getString("quality"))
        .orElse("");
  }

  /** A GET on the gateway's HTTP port; empty while it does not answer (it is still starting). */
  private Optional<String> get(String path) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? Optional.of(r.body()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A meter's value in the Prometheus exposition, without labels. */
  private static Optional<Double> meter(String metrics, String name) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(name + " "))
        .map(l -> Double.parseDouble(l.substring(name.length() + 1).trim()))
        .findFirst();
  }

  private String topic(String rest) {
    return rig.topic(rest);
  }
}
