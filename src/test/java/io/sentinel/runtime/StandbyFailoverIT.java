package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 on the packaged application: two gateways of one site on one database, a standby
 * configured, under load for the whole run, through three ends of the active core: a SIGKILL, its
 * lock session terminated ({@code pg_terminate_backend}), a clean stop (SIGTERM). At each the other
 * is active within 5 s, its first command the fail-safe interlock's (the input says all is well, so
 * only the start's fail-safe assertion explains it), the epoch one more in the command ids, the
 * logs and the audit chain; the two never command at the same time and never both say they are
 * active. The killed core's will and a clean stop leave {@code offline} retained. The standby tells
 * systemd it is ready and feeds its watchdog. At the end the audit chain both cores wrote verifies
 * (docs/standby.md, "What shows it").
 *
 * <p>Uses a Mosquitto of its own (PackagedGateway; else Moquette in the test JVM), PostgreSQL (else
 * an embedded one) and {@code target/quarkus-app/quarkus-run.jar}.
 */
class StandbyFailoverIT {
  private static final Pattern EPOCH = Pattern.compile("/e(\\d+)\\.");
  private static final Pattern RESTORED =
      Pattern.compile("SEN-DB-053 restored (\\d+) point values");

  private TestDatabase db;
  private PackagedGateway rig;
  private String site;
  private Path dir;
  private BrokerClient recorder;
  private Process a;
  private Process b;
  private NotifySocket notify;
  private FailoverLoad load;

  @BeforeEach
  void setUp() {
    rig =
        new PackagedGateway(
            "standby-failover",
            """
            points:
              fo.ok: { type: bool, direction: in }
              fo.load: { type: number, unit: W, direction: in, range: [0, 100000] }
              fo.dump: { type: bool, direction: out, release_value: false }
            """,
            Map.of(
                "dump.yaml",
                """
                - id: dump-unless-ok
                  band: interlock
                  interlock_class: fail_safe
                  fail_value: true
                  inputs: { ok: fo.ok }
                  trigger: { on: transition }
                  when: ok.value == false
                  claims: [ { point: fo.dump, value: true } ]
                  on_input_loss: { assert: true }
                  warmup: all_inputs_live
                """),
            Duration.ofSeconds(200),
            false,
            "status",
            "cores/#",
            "commands/#");
    rig.endsSession("core-a");
    rig.endsSession("core-b");
    site = rig.site;
    dir = rig.dir;
    recorder = rig.recorder;
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (load != null) {
        load.close();
      }
      if (notify != null) {
        notify.close();
      }
      rig.close();
    } finally {
      db.close();
    }
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void sigkill_terminatedSession_cleanStop_eachTimeTheOtherWithin5s_neverBoth_oneAuditChain()
      throws Exception {
    // The time bounds are checked at the end, so that one missed on a loaded machine does not hide
    // what the rest of the run shows.
    SoftAssertions within5s = new SoftAssertions();
    a = start("core-a");
    await("core-a active", () -> state("cores/core-a").equals("active"));
    notify = new NotifySocket(dir);
    b = start("core-b");
    await("core-b standing by", () -> state("cores/core-b").equals("standby"));
    // A standby is a running service to systemd: ready, and its watchdog fed while it waits.
    List<String> beats = notify.await(3, Duration.ofSeconds(30));
    assertThat(beats.get(0)).isEqualTo("READY=1|STATUS=standby for site " + site);
    assertThat(beats.subList(1, 3)).containsOnly("WATCHDOG=1");
    await("core-a's fail-safe interlock", () -> !commands(1).isEmpty());

    load = new FailoverLoad(rig.device, topic("points/fo.load"), topic("points/fo.ok"));
    await("core-a commanding under load", () -> commands(1).size() >= 3);

    // core-b's restore (checked below) reads what core-a's journal has fed PostgreSQL: the kill
    // waits for it, since the feed runs behind the decisions.
    await(
        "core-a's point values in PostgreSQL",
        () -> db.longs("SELECT count(*) FROM point_values").get(0) >= 2);

    // 1. SIGKILL. fo.ok steady true first: core-a releases the dump, and what core-b commands
    // first can only be the fail-safe assertion of its start.
    long killedAfterMs = calmThen(1, () -> a.destroyForcibly());
    long killed = System.nanoTime();
    assertThat(a.waitFor(5, TimeUnit.SECONDS)).isTrue();
    await("core-b's first command", () -> !commands(2).isEmpty());
    long takeoverMs = (System.nanoTime() - killed) / 1_000_000;
    within5s.assertThat(takeoverMs).as("takeoverMs").isLessThan(5000);
    assertFailSafeFirst(2);
    // core-a's will: its role said offline, retained; the site's status went offline between.
    await("core-a offline", () -> state("cores/core-a").equals("offline"));
    assertThat(retained("cores/core-a")).isEqualTo("offline");
    assertThat(recorder.on(topic("status")).stream().map(this::stateOf).toList())
        .containsSubsequence("online", "offline", "online");
    // core-b restored the point values core-a had logged: it never ran before.
    Matcher restored = RESTORED.matcher(Files.readString(log("core-b", 2)));
    assertThat(restored.find()).as("core-b's SEN-DB-053").isTrue();
    assertThat(Long.parseLong(restored.group(1))).isGreaterThanOrEqualTo(2);
    load.flip();

    // 2. core-a again, standing by; core-b's lock session terminated.
    a = start("core-a");
    await("core-a standing by again", () -> state("cores/core-a").equals("standby"));
    await("core-b commanding", () -> commands(2).size() >= 5);
    int before = commands(2).size();
    Thread.sleep(1000);
    assertThat(commands(2).size()).as("core-b commanding before the cut").isGreaterThan(before);
    Instant cut = Instant.now();
    long cutNanos = System.nanoTime();
    assertThat(db.terminateLockSessions()).isEqualTo(1);
    await("core-a's first command at epoch 3", () -> !commands(3).isEmpty());
    long secondTakeoverMs = (System.nanoTime() - cutNanos) / 1_000_000;
    within5s.assertThat(secondTakeoverMs).as("secondTakeoverMs").isLessThan(5000);
    assertThat(commands(3).get(0).json().getString("band")).isEqualTo("interlock");
    List<BrokerClient.Received> lateOfB =
        commands(2).stream().filter(r -> r.at().isAfter(cut.plusSeconds(1))).toList();
    assertThat(lateOfB).as("core-b's commands more than 1 s after its session ended").isEmpty();
    long lastOfBms = Duration.between(cut, last(commands(2)).at()).toMillis();
    // One core active again: core-b, which lost its session, backs off, so core-a has it.
    await("core-b standing by after the cut", () -> state("cores/core-b").equals("standby"));
    assertThat(state("cores/core-a")).isEqualTo("active");
    await("core-a commanding", () -> commands(3).size() >= 5);

    // 3. A clean stop of the active core-a (SIGTERM, as systemctl stop does), fo.ok steady true.
    long stoppedAfterMs = calmThen(3, () -> a.destroy());
    long stopped = System.nanoTime();
    await("core-b's first command at epoch 4", () -> !commands(4).isEmpty());
    long thirdTakeoverMs = (System.nanoTime() - stopped) / 1_000_000;
    within5s.assertThat(thirdTakeoverMs).as("thirdTakeoverMs").isLessThan(5000);
    assertFailSafeFirst(4);
    assertThat(a.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(retained("cores/core-a")).isEqualTo("offline");
    load.flip();
    await("core-b commanding at epoch 4", () -> commands(4).size() >= 3);
    load.close();

    // The whole run: one core commanding at a time, one saying it is active at a time.
    assertThat(recorder.on(topic("commands/fo.dump")))
        .allSatisfy(r -> assertThat(epoch(r)).isBetween(1L, 4L));
    for (long e = 2; e <= 4; e++) {
      Instant lastOfPrevious = last(commands(e - 1)).at();
      assertThat(commands(e)).allSatisfy(r -> assertThat(r.at()).isAfter(lastOfPrevious));
    }
    assertThat(RoleTimeline.mostActiveAtOnce(recorder.received(), topic("cores/")))
        .as("cores saying active at the same time")
        .isEqualTo(1);
    b.destroy(); // SIGTERM, the last core: a clean stop says offline itself
    assertThat(b.waitFor(30, TimeUnit.SECONDS)).isTrue();
    await("core-b offline", () -> state("cores/core-b").equals("offline"));
    await("site offline", () -> state("status").equals("offline"));
    assertThat(retained("status")).isEqualTo("offline");
    assertThat(retained("cores/core-b")).isEqualTo("offline");
    // The epoch, one more at each takeover, in the lock's table, the logs, the journal, the audit
    // (read once both cores have stopped: what they logged is in PostgreSQL).
    assertThat(db.rows("SELECT epoch, holder FROM core_epoch"))
        .containsExactly(List.of("4", "core-b"));
    assertThat(Files.readString(log("core-a", 1))).contains("active core, epoch 1");
    assertThat(Files.readString(log("core-b", 2)))
        .contains("active core, epoch 2")
        .contains("active core, epoch 4");
    assertThat(Files.readString(log("core-a", 3))).contains("active core, epoch 3");
    assertThat(
            db.longs(
                "SELECT DISTINCT substring(command_id from '/e(\\d+)\\.')::bigint AS e FROM"
                    + " commands ORDER BY e"))
        .containsExactly(1L, 2L, 3L, 4L);
    assertThat(
            db.rows(
                "SELECT detail->>'epoch', detail->>'holder' FROM audit_log WHERE kind = 'core'"
                    + " ORDER BY seq"))
        .containsExactly(
            List.of("1", "core-a"),
            List.of("2", "core-b"),
            List.of("3", "core-a"),
            List.of("4", "core-b"));
    assertThat(
            db
                .rows("SELECT message FROM control_events WHERE kind = 'core-started' ORDER BY seq")
                .stream()
                .map(r -> r.get(0).replaceAll(".*; ", ""))
                .toList())
        .containsExactly(
            "active core core-a, epoch 1",
            "active core core-b, epoch 2",
            "active core core-a, epoch 3",
            "active core core-b, epoch 4");
    // Each takeover started on a fresh MQTT session, not on what the broker queued meanwhile.
    assertThat(Files.readString(log("core-a", 3))).contains("SEN-187 ");
    assertThat(Files.readString(log("core-b", 2))).contains("SEN-187 ");
    // The journals handed over: core-a's folder, behind core-b's writing, did not number on.
    assertThat(Files.readString(log("core-a", 3))).containsPattern("SEN-18[56] ");
    CliRunner verified = CliRunner.run("audit", "verify", "--db", db.configUrl());
    assertThat(verified.output()).startsWith("intact: ");
    assertThat(verified.exit()).isZero();

    System.out.printf(
        "StandbyFailoverIT (%s): SIGKILL %d ms after core-a's last command, core-b's first %d ms"
            + " after the kill; core-b's session terminated: its last command %d ms after, core-a's"
            + " first %d ms after; core-a stopped (SIGTERM) %d ms after its last command, core-b's"
            + " first %d ms after; commands at epochs 1/2/3/4: %d/%d/%d/%d; %s%n",
        rig.mqtt,
        killedAfterMs,
        takeoverMs,
        lastOfBms,
        secondTakeoverMs,
        stoppedAfterMs,
        thirdTakeoverMs,
        commands(1).size(),
        commands(2).size(),
        commands(3).size(),
        commands(4).size(),
        verified.output().trim());
    within5s.assertAll();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void standbyWithoutASharedDatabase_doesNotStart_sayingWhy() throws Exception {
    Process alone =
        rig.start(
            "no-db",
            List.of(
                "-Dquarkus.http.port=0",
                "-Dsentinel.home=" + dir.resolve("home-no-db"),
                "-Dsentinel.standby.enabled=true"),
            Map.of("SENTINEL_DB_URL", ""));
    assertThat(alone.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(alone.exitValue()).isNotZero();
    assertThat(Files.readString(log("no-db", 1)))
        .contains("SEN-STB-007 sentinel.standby.enabled needs the site's shared database");
  }

  /**
   * fo.ok steady true until the core of {@code epoch} has released the dump and said nothing for
   * half a second, then {@code end} it; returns how long after its last command that was.
   */
  private long calmThen(long epoch, Runnable end) {
    load.steady();
    await(
        "epoch " + epoch + " calm",
        () -> {
          List<BrokerClient.Received> c = commands(epoch);
          BrokerClient.Received l = last(c);
          return Boolean.FALSE.equals(l.json().getValue("value"))
              && l.at().isBefore(Instant.now().minusMillis(500));
        });
    Instant lastCommand = last(commands(epoch)).at();
    end.run();
    return Duration.between(lastCommand, Instant.now()).toMillis();
  }

  /** The first command of {@code epoch}: the dump asserted by the fail-safe interlock. */
  private void assertFailSafeFirst(long epoch) {
    BrokerClient.Received first = commands(epoch).get(0);
    assertThat(first.topic()).isEqualTo(topic("commands/fo.dump"));
    assertThat(first.json().getValue("value")).isEqualTo(true);
    assertThat(first.json().getString("band")).isEqualTo("interlock");
  }

  /** What a client subscribing now gets retained on {@code rest}: its {@code state}. */
  private String retained(String rest) {
    try (BrokerClient fresh = new BrokerClient(rig.mqtt, "fresh-" + System.nanoTime(), false)) {
      fresh.subscribe(topic(rest));
      await("the retained " + rest, () -> fresh.last(topic(rest)).isPresent());
      return stateOf(fresh.last(topic(rest)).orElseThrow());
    }
  }

  private Process start(String id) throws IOException {
    Map<String, String> environment = new java.util.HashMap<>();
    environment.put("SENTINEL_DB_URL", db.configUrl());
    if (id.equals("core-b")) {
      environment.put("NOTIFY_SOCKET", notify.path.toString());
      environment.put("WATCHDOG_USEC", "1000000");
    }
    return rig.start(
        id,
        List.of(
            "-Dquarkus.http.port=0",
            "-Dsentinel.home=" + dir.resolve("home-" + id),
            "-Dsentinel.journal.dir=" + dir.resolve("journal-" + id),
            "-Dsentinel.mqtt.reconnect-initial=100ms",
            "-Dsentinel.mqtt.reconnect-max=1s",
            "-Dsentinel.standby.enabled=true",
            "-Dsentinel.mqtt.client-id=" + id,
            // fo.ok flips five times a second for the whole run: past the default flap limit
            "-Dsentinel.limits.claim-changes-per-point=100000"),
        environment);
  }

  private static Path log(String id, int run) {
    return Path.of("target", "standby-failover-" + run + "-" + id + ".log");
  }

  private List<BrokerClient.Received> commands(long epoch) {
    return recorder.received().stream()
        .filter(r -> r.topic().startsWith(topic("commands/")) && epoch(r) == epoch)
        .toList();
  }

  private static BrokerClient.Received last(List<BrokerClient.Received> received) {
    return received.get(received.size() - 1);
  }

  static long epoch(BrokerClient.Received r) {
    Matcher m = EPOCH.matcher(r.json().getString("command_id"));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private String stateOf(BrokerClient.Received r) {
    return r.payload().length == 0 ? "" : r.json().getString("state");
  }

  private String state(String rest) {
    return recorder.last(topic(rest)).map(this::stateOf).orElse("");
  }

  private String topic(String rest) {
    return rig.topic(rest);
  }

  private void await(String what, BooleanSupplier condition) {
    rig.await(what, condition);
  }
}
