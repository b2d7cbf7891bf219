package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 on the packaged application: two gateways of one site on one database, a standby
 * configured. One is active and commands; SIGKILLed under load, the other is active within 5 s, its
 * first command the fail-safe interlock's, every command id carrying its epoch (one more), and none
 * of the two commands at the same time. The killed one's last will leaves {@code offline} retained,
 * and so does a clean stop. The killed one, started again, stands by; the active one's lock session
 * terminated, it commands nothing a second later and the other runs at epoch 3. The standby tells
 * systemd it is ready and feeds its watchdog (docs/standby.md).
 *
 * <p>Uses a Mosquitto of its own (PackagedGateway; else Moquette in the test JVM), PostgreSQL (else
 * an embedded one) and {@code target/quarkus-app/quarkus-run.jar}.
 */
class StandbyFailoverIT {
  private static final Pattern EPOCH = Pattern.compile("/e(\\d+)\\.");

  private TestDatabase db;
  private PackagedGateway rig;
  private String site;
  private Path dir;
  private BrokerClient recorder;
  private BrokerClient device;
  private Process a;
  private Process b;
  private NotifySocket notify;

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
            Duration.ofSeconds(150),
            false,
            "status",
            "cores/#",
            "commands/#");
    rig.endsSession("core-a");
    rig.endsSession("core-b");
    site = rig.site;
    dir = rig.dir;
    recorder = rig.recorder;
    device = rig.device;
    db = TestDatabase.create();
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (notify != null) {
        notify.close();
      }
      rig.close();
    } finally {
      db.close();
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void activeSigkilledUnderLoad_standbyActiveWithin5s_interlockFirst_epochPlusOne_neverBoth()
      throws Exception {
    a = start("core-a");
    await("core-a active", () -> state("cores/core-a").equals("active"));
    notify = new NotifySocket(dir);
    b = start("core-b");
    await("core-b standing by", () -> state("cores/core-b").equals("standby"));
    // A standby is a running service to systemd: ready, and its watchdog fed while it waits.
    List<String> beats = notify.await(3, java.time.Duration.ofSeconds(30));
    assertThat(beats.get(0)).isEqualTo("READY=1|STATUS=standby for site " + site);
    assertThat(beats.subList(1, 3)).containsOnly("WATCHDOG=1");
    await("core-a's fail-safe interlock", () -> !commands(1).isEmpty());

    // Load: samples on fo.load as fast as the device sends them, fo.ok flipping every second.
    AtomicBoolean loading = new AtomicBoolean(true);
    Thread load =
        new Thread(
            () -> {
              long flip = 0;
              boolean ok = false;
              for (int i = 0; loading.get(); i++) {
                device.publish(topic("points/fo.load"), Integer.toString(i));
                if (System.nanoTime() - flip > 200_000_000L) {
                  flip = System.nanoTime();
                  ok = !ok;
                  device.publish(topic("points/fo.ok"), Boolean.toString(ok));
                }
              }
            },
            "failover-it-device");
    load.setDaemon(true);
    load.start();
    await("core-a commanding under load", () -> commands(1).size() >= 3);

    a.destroyForcibly(); // SIGKILL: no shutdown hook, no clean disconnect, no unlock
    long killed = System.nanoTime();
    assertThat(a.waitFor(5, TimeUnit.SECONDS)).isTrue();
    await("core-b's first command", () -> !commands(2).isEmpty());
    long takeoverMs = (System.nanoTime() - killed) / 1_000_000;
    assertThat(takeoverMs).isLessThan(5000);
    // core-a's will: its role and the site's status said offline before core-b was online.
    await("core-a offline", () -> state("cores/core-a").equals("offline"));
    List<String> statuses =
        recorder.on(topic("status")).stream()
            .filter(r -> r.payload().length > 0)
            .map(r -> r.json().getString("state"))
            .toList();
    assertThat(statuses).containsSubsequence("online", "offline", "online");
    BrokerClient.Received first = commands(2).get(0);
    assertThat(first.topic()).isEqualTo(topic("commands/fo.dump"));
    assertThat(first.json().getValue("value")).isEqualTo(true);
    assertThat(first.json().getString("band")).isEqualTo("interlock");

    // Every command carries epoch 1 or 2; all of core-a's reached the broker before core-b's.
    Instant lastOfA = commands(1).get(commands(1).size() - 1).at();
    assertThat(commands(2)).allSatisfy(r -> assertThat(r.at()).isAfter(lastOfA));
    assertThat(db.rows("SELECT epoch, holder FROM core_epoch"))
        .containsExactly(List.of("2", "core-b"));
    assertThat(Files.readString(log("core-b", 2))).contains("active core, epoch 2");

    // core-a again, standing by; then core-b's lock session is terminated under load.
    a = start("core-a");
    await("core-a standing by again", () -> state("cores/core-a").equals("standby"));
    await("core-b commanding", () -> commands(2).size() >= 5);
    int before = commands(2).size();
    Thread.sleep(1000);
    assertThat(commands(2).size()).as("core-b commanding before the cut").isGreaterThan(before);
    Instant cut = Instant.now();
    long cutNanos = System.nanoTime();
    assertThat(
            db.longs(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype ="
                    + " 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE"
                    + " datname = current_database())"))
        .containsExactly(1L);
    await("core-a's first command at epoch 3", () -> !commands(3).isEmpty());
    long secondTakeoverMs = (System.nanoTime() - cutNanos) / 1_000_000;
    assertThat(secondTakeoverMs).isLessThan(5000);
    assertThat(commands(3).get(0).json().getString("band")).isEqualTo("interlock");
    List<BrokerClient.Received> lateOfB =
        commands(2).stream().filter(r -> r.at().isAfter(cut.plusSeconds(1))).toList();
    assertThat(lateOfB).as("core-b's commands more than 1 s after its session ended").isEmpty();
    Instant lastOfB = commands(2).get(commands(2).size() - 1).at();
    assertThat(commands(3)).allSatisfy(r -> assertThat(r.at()).isAfter(lastOfB));
    // One core active again: core-b, which lost its session, backs off, so core-a has it.
    await("core-b standing by after the cut", () -> state("cores/core-b").equals("standby"));
    assertThat(state("cores/core-a")).isEqualTo("active");
    long lastOfBms = java.time.Duration.between(cut, lastOfB).toMillis();

    Thread.sleep(1000);
    loading.set(false);
    load.join(5000);
    assertThat(recorder.on(topic("commands/fo.dump")))
        .allSatisfy(r -> assertThat(epoch(r)).isIn(1L, 2L, 3L));
    assertThat(db.rows("SELECT epoch, holder FROM core_epoch"))
        .containsExactly(List.of("3", "core-a"));

    b.destroy(); // SIGTERM, the standby: its role says offline
    assertThat(b.waitFor(30, TimeUnit.SECONDS)).isTrue();
    await("core-b offline", () -> state("cores/core-b").equals("offline"));
    assertThat(state("status")).isEqualTo("online");
    a.destroy(); // SIGTERM, the active core: a clean stop says offline itself
    assertThat(a.waitFor(30, TimeUnit.SECONDS)).isTrue();
    await("core-a offline", () -> state("cores/core-a").equals("offline"));
    await("site offline", () -> state("status").equals("offline"));
    System.out.printf(
        "StandbyFailoverIT (%s): core-b's first command %d ms after core-a was SIGKILLed; core-b's"
            + " session terminated: its last command %d ms after, core-a's first %d ms after;"
            + " commands at epochs 1/2/3: %d/%d/%d%n",
        rig.mqtt,
        takeoverMs,
        lastOfBms,
        secondTakeoverMs,
        commands(1).size(),
        commands(2).size(),
        commands(3).size());
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

  private static long epoch(BrokerClient.Received r) {
    Matcher m = EPOCH.matcher(r.json().getString("command_id"));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private String state(String rest) {
    return recorder
        .last(topic(rest))
        .filter(r -> r.payload().length > 0)
        .map(r -> r.json().getString("state"))
        .orElse("");
  }

  private String topic(String rest) {
    return rig.topic(rest);
  }

  private void await(String what, BooleanSupplier condition) {
    rig.await(what, condition);
  }
}
