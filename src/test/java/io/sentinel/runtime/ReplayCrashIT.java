package io.sentinel.runtime;

import static io.sentinel.runtime.HeaterScript.POINTS;
import static io.sentinel.runtime.HeaterScript.RULES;
import static io.sentinel.runtime.HeaterScript.SCRIPT;
import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.runtime.HeaterScript.Made;
import io.sentinel.runtime.HeaterScript.Pressure;
import io.sentinel.runtime.HeaterScript.Push;
import io.sentinel.runtime.HeaterScript.Start;
import io.sentinel.runtime.HeaterScript.Step;
import io.sentinel.runtime.HeaterScript.Temp;
import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 16's replay gate after a real crash, on the packaged application (docs/replay.md, "What
 * shows it"): through a Mosquitto of the test's own (else Moquette) and PostgreSQL (the machine's,
 * else embedded), a window holding an operator override, a SIGKILL of the gateway process while
 * samples stream in, a restart that restores the override, and a pushed signed revision. {@code
 * sentinel replay} over the window with the rules that ran: 0 only in replay, 0 only in history,
 * and as many matched as the {@code commands} table holds for the window; with the heater's
 * threshold changed: exactly the differences {@link HeaterScript} works out from the inputs sent.
 */
class ReplayCrashIT {
  private static final Path KEYS = Path.of("src/test/resources/revisions").toAbsolutePath();
  private static final String TOKEN = "replay-crash-it-token";
  private static final String FAN = "rc.fan";
  private static final String LOAD = "rc.load";

  /** The load stream: paced so that fan-on stays under its evaluation limit (600 per 10 s). */
  private static final int LOAD_PER_SECOND = 40;

  private static final int OVERRIDE_AT = 120;
  private static final int KILL_AT = 240;
  private static final int LOAD_SAMPLES = 400;

  /**
   * Between a sample logged and the next sent: more than replay's default tolerance (1 s), so that
   * no two differences of the same kind pair up across samples.
   */
  private static final Duration SPACING = Duration.ofMillis(1500);

  private static final HeaterScript.Outcome HISTORY = HeaterScript.decide(SCRIPT, 20, true);

  private TestDatabase db;
  private PackagedGateway rig;
  private Process gateway;
  private int httpPort;
  private int starts;
  private Instant lastSample = Instant.MIN;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void setUp() throws IOException {
    rig =
        new PackagedGateway(
            "replaycrash",
            POINTS,
            Map.of("heating.yaml", RULES),
            Duration.ofSeconds(280),
            false,
            "status",
            "ruleset",
            "ruleset/status",
            "commands/#",
            "claims/#");
    db = TestDatabase.create();
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      httpPort = s.getLocalPort();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    rig.closeWith(db);
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void aWindowWithASigkill_replaysWithoutDifference_andAChangedThresholdShowsExactlyItsOwn()
      throws Exception {
    play(0, 1);
    // The first start's fail-safe command leaves once the broker is connected: before the window.
    rig.await(
        "the first start's fail-safe command",
        () -> db.count("SELECT count(*) FROM commands WHERE point_id = 'rc.heater'") >= 1);
    Instant from = Instant.now();
    play(1, 10);

    // The fan: on once the load passes 100 W, then held off by an operator through the crash.
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    stream(0, OVERRIDE_AT, inFlight);
    awaitDecisions(FAN, 1);
    api(
        "PUT",
        "{\"value\": false, \"expires_in\": \"2h\", \"by\": \"alice\", \"reason\": \"belt\"}");
    awaitDecisions(FAN, 2);
    rig.await(
        "the override in a durable snapshot",
        () ->
            db.count("SELECT count(*) FROM derived_snapshots WHERE overrides::text LIKE '%rc.fan%'")
                > 0);
    stream(OVERRIDE_AT, KILL_AT, inFlight);
    gateway.destroyForcibly(); // SIGKILL: samples in flight, passes journaled and not yet fed
    assertThat(gateway.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(gateway.exitValue()).as("killed by SIGKILL").isEqualTo(137);
    long loggedAtKill = distinctLoad();

    play(10, 11);
    awaitDecisions(FAN, 3); // the override restored in the restart's first pass
    stream(KILL_AT, LOAD_SAMPLES, inFlight);
    CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    rig.await("every load sample logged", () -> distinctLoad() == LOAD_SAMPLES);
    play(11, 16);
    api("DELETE", null);
    awaitDecisions(FAN, 4);
    play(16, SCRIPT.size());

    // The gateway did what the script says, and each decision became one command.
    assertThat(decisions(HeaterScript.HEATER))
        .isEqualTo(HISTORY.commands().stream().map(Made::what).toList());
    assertThat(decisions(FAN))
        .containsExactly(
            FAN + " := true (fan-on, automation)",
            FAN + " := false (override:operator, operator)",
            FAN + " := false (override:operator, operator)",
            FAN + " := true (fan-on, automation)");
    rig.await(
        "every decision of the window sent as a command",
        () -> inWindow("commands", "issued_at", from) == inWindow("decisions", "at", from));
    Thread.sleep(500);
    Instant to = Instant.now();
    long commands = inWindow("commands", "issued_at", from);
    assertThat(commands)
        .isEqualTo(HISTORY.commands().stream().filter(m -> m.step() > 0).count() + 4);
    long claims = inWindow("claim_changes", "at", from);

    // With the rules that ran: nothing differs, every command of the window matched.
    CliRunner ran = CliRunner.replay(from, to, db.configUrl(), "--site", rig.siteDir().toString());
    assertThat(ran.exit()).as(ran.output()).isZero();
    assertThat(ran.output())
        .contains("with the rules that ran (2 start(s), 1 activation(s), 2 override request(s)")
        .contains(commands + " matched, 0 only in replay, 0 only in history")
        .contains("claims: " + claims + " matched, 0 only in replay, 0 only in history");
    assertThat(
            ran.output()
                .lines()
                .filter(l -> l.startsWith("matched"))
                .map(l -> l.split(" {2,}", 3)[2])
                .filter(l -> l.startsWith(HeaterScript.HEATER + " ")))
        .containsExactlyElementsOf(
            HISTORY.commands().stream().filter(m -> m.step() > 0).map(Made::what).toList());

    // The heater-on threshold at 25 degC throughout: exactly what the script says, nothing else.
    Path changed = Files.createDirectories(rig.dir.resolve("changed/rules"));
    Files.writeString(changed.resolveSibling("points.yaml"), POINTS);
    Files.writeString(changed.resolve("heating.yaml"), RULES.replace("< 20 degC", "< 25 degC"));
    CliRunner at25 =
        CliRunner.replay(from, to, db.configUrl(), "--rules", changed.getParent().toString());
    assertThat(at25.exit()).as(at25.output()).isEqualTo(1);
    HeaterScript.Outcome replayed = HeaterScript.decide(SCRIPT, 25, false);
    List<Instant> observed = sampleInstants();
    assertDifferences(
        at25.output(), false, "only in history", HISTORY.commands(), replayed.commands(), observed);
    assertDifferences(
        at25.output(), false, "only in replay", replayed.commands(), HISTORY.commands(), observed);
    assertDifferences(
        at25.output(), true, "only in history", HISTORY.claims(), replayed.claims(), observed);
    assertDifferences(
        at25.output(), true, "only in replay", replayed.claims(), HISTORY.claims(), observed);

    long rows = db.count("SELECT count(*) FROM observations WHERE point_id = '" + LOAD + "'");
    System.out.printf(
        "ReplayCrashIT (%s): killed with %d of %d load samples logged; %d load rows for %d"
            + " samples; %d commands and %d claim changes in the window%n%s%n",
        rig.mqtt, loggedAtKill, KILL_AT, rows, LOAD_SAMPLES, commands, claims, at25.output());
  }

  /** Plays the script's steps {@code [from, to)}, each awaited in the log before the next. */
  private void play(int from, int to) throws Exception {
    for (int i = from; i < to; i++) {
      Step s = SCRIPT.get(i);
      if (s instanceof Start) {
        gateway = startGateway();
        starts++;
        rig.awaitOnline(gateway, starts);
      } else if (s instanceof Pressure p) {
        sample("rc.pressure", p.bar());
      } else if (s instanceof Temp t) {
        sample("rc.temp", t.degC());
      } else if (s instanceof Push p) {
        push(p.threshold());
      }
      int step = i;
      long expected = HISTORY.commands().stream().filter(m -> m.step() <= step).count();
      awaitDecisions(HeaterScript.HEATER, expected);
    }
  }

  private void sample(String point, double value) throws InterruptedException {
    Duration since = Duration.between(lastSample, Instant.now());
    if (since.compareTo(SPACING) < 0) {
      Thread.sleep(SPACING.minus(since).toMillis());
    }
    long before = observations(point);
    rig.device.publish(rig.topic("points/" + point), Double.toString(value));
    rig.await(point + " = " + value + " logged", () -> observations(point) == before + 1);
    lastSample = Instant.now();
  }

  private void push(double threshold) throws IOException {
    long revision = db.count("SELECT max(revision) FROM ruleset_revisions") + 1;
    Path doc =
        Files.writeString(
            rig.dir.resolve("rev" + revision + ".yaml"),
            "revision: "
                + revision
                + "\nsite: "
                + rig.site
                + "\nrules:\n"
                + RULES.replace("< 20 degC", "< " + (int) threshold + " degC"));
    CliRunner push =
        CliRunner.run(
            "push",
            doc.toString(),
            "--broker",
            rig.mqtt,
            "--site",
            rig.site,
            "--key",
            KEYS.resolve("ops.key").toString(),
            "--timeout",
            "60s");
    assertThat(push.exit()).as(push.output()).isZero();
  }

  /** Publishes load samples {@code [from, to)} paced, without waiting for the broker's PUBACKs. */
  private void stream(int from, int to, List<CompletableFuture<?>> inFlight)
      throws InterruptedException {
    long t0 = System.nanoTime();
    for (int i = from; i < to; i++) {
      long due = t0 + (i - from) * 1_000_000_000L / LOAD_PER_SECOND;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      inFlight.add(
          rig.device.publishAsync(
              rig.topic("points/" + LOAD),
              Integer.toString(i).getBytes(StandardCharsets.UTF_8),
              false));
    }
  }

  private void assertDifferences(
      String out,
      boolean claims,
      String side,
      List<Made> these,
      List<Made> butNotThose,
      List<Instant> observed) {
    List<Made> expected =
        HeaterScript.notIn(these, butNotThose).stream().filter(m -> m.step() > 0).toList();
    List<String[]> lines =
        out.lines()
            .filter(l -> l.startsWith(side))
            .map(l -> l.split(" {2,}", 3))
            .filter(l -> l[2].startsWith("claim ") == claims)
            .toList();
    assertThat(lines.stream().map(l -> l[2]))
        .as(side + (claims ? " (claims)" : " (commands)") + "\n" + out)
        .hasSize(expected.size())
        .zipSatisfy(
            expected,
            (line, made) ->
                assertThat(line).matches(java.util.regex.Pattern.quote(made.what()) + "(: .*)?"));
    for (int k = 0; k < lines.size(); k++) {
      Instant at = Instant.parse(lines.get(k)[1]);
      Instant sample = observed.get(expected.get(k).step());
      assertThat(Duration.between(sample, at).abs())
          .as("%s at step %d", lines.get(k)[2], expected.get(k).step())
          .isLessThan(Duration.ofSeconds(1));
    }
  }

  /** The instant the gateway took each sample step at (from the log), by step; null otherwise. */
  private List<Instant> sampleInstants() {
    List<Instant> temps = instants("rc.temp");
    List<Instant> pressures = instants("rc.pressure");
    List<Instant> out = new ArrayList<>();
    int t = 0;
    int p = 0;
    for (Step s : SCRIPT) {
      out.add(
          s instanceof Temp ? temps.get(t++) : s instanceof Pressure ? pressures.get(p++) : null);
    }
    return out;
  }

  private List<Instant> instants(String point) {
    return db
        .rows(
            "SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
                + " FROM observations WHERE point_id = '"
                + point
                + "' ORDER BY seq")
        .stream()
        .map(r -> Instant.parse(r.get(0)))
        .toList();
  }

  /** A point's decisions as replay describes them, in the order the gateway made them. */
  private List<String> decisions(String point) {
    return db
        .rows(
            "SELECT kind, value::text, rule_id, band FROM decisions WHERE point_id = '"
                + point
                + "' ORDER BY seq")
        .stream()
        .map(
            r ->
                point
                    + (r.get(0).equals("assert")
                        ? " := " + r.get(1) + " (" + r.get(2) + ", " + r.get(3) + ")"
                        : " released to " + r.get(1)))
        .toList();
  }

  private void awaitDecisions(String point, long n) {
    rig.await(
        n + " decisions on " + point + ", so far " + decisions(point),
        () -> db.count("SELECT count(*) FROM decisions WHERE point_id = '" + point + "'") >= n);
  }

  private long inWindow(String table, String column, Instant from) {
    return db.count("SELECT count(*) FROM " + table + " WHERE " + column + " >= '" + from + "'");
  }

  private long observations(String point) {
    return db.count("SELECT count(*) FROM observations WHERE point_id = '" + point + "'");
  }

  private long distinctLoad() {
    return db.count(
        "SELECT count(DISTINCT value_num) FROM observations WHERE point_id = '" + LOAD + "'");
  }

  /** The fan's override set ({@code PUT}) or cleared ({@code DELETE}), retried until HTTP is up. */
  private void api(String method, String body) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/api/v1/points/" + FAN + "/override"))
            .header("Authorization", "Bearer " + TOKEN)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    int[] status = {0};
    rig.await(
        method + " override answered 200 (last " + status[0] + ")",
        () -> {
          try {
            status[0] = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
          } catch (IOException e) {
            status[0] = -1;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
          }
          return status[0] == 200;
        });
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        rig.restartable(httpPort),
        Map.of(
            "SENTINEL_DB_URL",
            db.configUrl(),
            "SENTINEL_MQTT_VERSION",
            rig.mqttVersion(),
            "SENTINEL_API_TOKEN",
            TOKEN,
            "SENTINEL_RULESET_KEYS_FILE",
            KEYS.resolve("keys.yaml").toString()));
  }
}
