package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.pi4j.io.gpio.digital.DigitalOutput;
import com.pi4j.io.gpio.digital.DigitalState;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.gpio.GpioAdapter;
import io.sentinel.store.CoreLock;
import io.sentinel.store.TestDatabase;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A gateway with a standby configured, on Pi4J's mock pins (site src/test/resources/sites/gpio),
 * and the test as the site's other core: it takes the core lock when the gateway loses it, holds it
 * while the gateway stands by, and lets go for the gateway to take over. The gateway reaches its
 * database through a link the test makes silent at the end (docs/standby.md).
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "src/test/resources/sites/gpio"),
      @ResourceArg(name = "site-prefix", value = "standby"),
      @ResourceArg(name = "sentinel.gpio.platform", value = "mock"),
      @ResourceArg(name = "sentinel.standby.enabled", value = "true"),
      @ResourceArg(name = "sentinel.mqtt.client-id", value = "standby-test-core-a"),
      @ResourceArg(name = "sentinel.heartbeat.pin", value = "6"),
      @ResourceArg(name = "db-link", value = "true")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandbyGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final int AIR_DUMP = 24; // asserted by a fail-safe interlock; safe state low
  private static final int HEARTBEAT = 6;

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @TestHTTPResource("/q/health/live")
  URI live;

  @TestHTTPResource("/q/health/ready")
  URI ready;

  @TestHTTPResource("/q/health")
  URI health;

  private CoreLock other;
  private BrokerClient watcher;

  /** The latest retained state on {@code rest}, once it is {@code state}. */
  private JsonObject awaitState(String rest, String state) {
    String topic = broker.topic(rest);
    await()
        .atMost(WAIT)
        .until(
            () ->
                watcher
                    .last(topic)
                    .map(r -> r.json().getString("state").equals(state))
                    .orElse(false));
    return watcher.last(topic).orElseThrow().json();
  }

  @Test
  @Order(1)
  void alone_theGatewayTakesTheLock_epochOne_everyCommandIdCarriesIt() {
    await().atMost(WAIT).until(() -> gateway.role().equals("active") && gateway.running());
    assertThat(gateway.epoch()).isEqualTo(1);
    assertThat(engineCheck().getJsonObject("data").getString("role")).isEqualTo("active");
    await().atMost(WAIT).until(() -> airDump().state() == DigitalState.HIGH);
    await().atMost(WAIT).until(() -> db().count("SELECT count(*) FROM commands") > 0);
    assertThat(db().count("SELECT count(*) FROM commands WHERE command_id NOT LIKE '%/e1.%'"))
        .isZero();
    assertThat(db().rows("SELECT epoch, holder FROM core_epoch"))
        .containsExactly(java.util.List.of("1", "standby-test-core-a"));
    watcher = broker.client("watcher").subscribe(broker.topic("status"), broker.topic("cores/#"));
    assertThat(awaitState("cores/standby-test-core-a", "active").getLong("epoch")).isEqualTo(1);
    awaitState("status", "online");
    // The audit chain says which core issues what follows.
    await().atMost(WAIT).until(() -> !tenures().isEmpty());
    assertThat(tenures()).containsExactly(java.util.List.of("1", "standby-test-core-a"));
  }

  /** The audit log's {@code core} entries: epoch and holder, in chain order. */
  private java.util.List<java.util.List<String>> tenures() {
    return db().rows(
            "SELECT detail->>'epoch', detail->>'holder' FROM audit_log WHERE kind = 'core' ORDER"
                + " BY seq");
  }

  @Test
  @Order(2)
  void heartbeat_togglesWhilePassesRun_stopsWithin200msOfTheEngineLoopStalling() throws Exception {
    HeartbeatLog beats = heartbeatLog();
    await().atMost(WAIT).until(() -> beats.log.changes() >= 10);
    long[] stall = new long[2];
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    gateway
        .loop()
        .onContext(
            () -> {
              stall[0] = System.nanoTime();
              try {
                Thread.sleep(1000); // a pass that hangs
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              stall[1] = System.nanoTime();
              done.countDown();
              return io.sentinel.command.PlaneOutput.NONE;
            });
    assertThat(done.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    java.util.List<Long> during =
        beats.times().stream().filter(t -> t > stall[0] + 200_000_000L && t < stall[1]).toList();
    assertThat(during).isEmpty();
    long lastBefore =
        beats.times().stream().filter(t -> t < stall[1]).mapToLong(Long::longValue).max().orElse(0);
    System.out.printf(
        "heartbeat: last edge %d ms after the stall began (the stall lasted %d ms)%n",
        (lastBefore - stall[0]) / 1_000_000, (stall[1] - stall[0]) / 1_000_000);
    // And it starts again with the passes.
    int after = beats.log.changes();
    await().atMost(Duration.ofSeconds(2)).until(() -> beats.log.changes() > after + 5);
  }

  @Test
  @Order(3)
  void lockSessionTerminated_outputsSafeAndCommandsStopWithinOneSecond_thenStandsBy()
      throws Exception {
    DigitalOutput air = airDump();
    assertThat(air.state()).isEqualTo(DigitalState.HIGH);
    HeartbeatLog beats = heartbeatLog();
    long terminated = System.nanoTime();
    assertThat(
            db().rows(
                    "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE"
                        + " application_name = '"
                        + CoreLock.APPLICATION_NAME
                        + "' AND datname = current_database()"))
        .containsExactly(java.util.List.of("true"));
    // The site's other core takes the lock the moment the server let it go.
    while (other == null && System.nanoTime() - terminated < Duration.ofSeconds(2).toNanos()) {
      other =
          CoreLock.tryTake(db().url(), broker.site(), "test-core-b", Duration.ofSeconds(1))
              .orElse(null);
    }
    assertThat(other).isNotNull();
    assertThat(other.epoch()).isEqualTo(2);
    await()
        .atMost(Duration.ofSeconds(1).minusNanos(System.nanoTime() - terminated))
        .until(() -> air.state() == DigitalState.LOW && !gateway.role().equals("active"));
    long stoppedAfterMs = (System.nanoTime() - terminated) / 1_000_000;
    assertThat(stoppedAfterMs).isLessThan(1000);
    System.out.printf("lock session terminated: outputs safe after %d ms%n", stoppedAfterMs);
    // No core runs: the heartbeat has stopped and is low, so the watchdog relay drops.
    await().atMost(Duration.ofSeconds(1)).until(() -> beats.pin.state() == DigitalState.LOW);
    int edges = beats.log.changes();

    // Standing by while the other core holds the lock: no pass, no command, live and saying so.
    await().atMost(WAIT).until(() -> !gateway.running());
    long commands = db().count("SELECT count(*) FROM commands");
    Thread.sleep(3000);
    assertThat(gateway.role()).isEqualTo("standby");
    assertThat(db().count("SELECT count(*) FROM commands")).isEqualTo(commands);
    assertThat(beats.log.changes()).isEqualTo(edges);
    assertThat(gateway.heartbeat()).isEmpty();
    assertThat(gateway.gpio()).as("no pin opened while standing by").isEmpty();
    assertThat(gateway.loop()).as("no engine loop while standing by").isNull();
    JsonObject engine = engineCheck();
    assertThat(engine.getString("status")).isEqualTo("UP");
    assertThat(engine.getJsonObject("data").getString("role")).isEqualTo("standby");
    // Live but not ready (nothing served, no MQTT session of the core); /q/health says standby.
    assertThat(new JsonObject(Http.get(ready)).getString("status")).isEqualTo("DOWN");
    assertThat(check(health, "sentinel-engine").getJsonObject("data").getString("role"))
        .isEqualTo("standby");
    // Retained: this core stands by; the site has no core online (the stopped core said so).
    awaitState("cores/standby-test-core-a", "standby");
    awaitState("status", "offline");
  }

  @Test
  @Order(4)
  void otherCoreEnds_standbyActiveWithinFiveSeconds_interlocksAsserted_epochPlusOne() {
    assertThat(other).isNotNull();
    long commands = db().count("SELECT count(*) FROM commands");
    other.close();
    long released = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                gateway.role().equals("active")
                    && gateway.gpio().isPresent()
                    && airDump().state() == DigitalState.HIGH);
    assertThat((System.nanoTime() - released) / 1_000_000).isLessThan(5000);
    assertThat(gateway.epoch()).isEqualTo(3);
    await().atMost(WAIT).until(() -> db().count("SELECT count(*) FROM commands") > commands);
    assertThat(
            db().count(
                    "SELECT count(*) FROM (SELECT command_id FROM commands ORDER BY seq OFFSET "
                        + commands
                        + ") c WHERE command_id NOT LIKE '%/e3.%'"))
        .isZero();
    assertThat(db().rows("SELECT epoch, holder FROM core_epoch"))
        .containsExactly(java.util.List.of("3", "standby-test-core-a"));
    assertThat(awaitState("cores/standby-test-core-a", "active").getLong("epoch")).isEqualTo(3);
    awaitState("status", "online");
    await().atMost(WAIT).until(() -> tenures().size() == 2);
    assertThat(tenures())
        .containsExactly(
            java.util.List.of("1", "standby-test-core-a"),
            java.util.List.of("3", "standby-test-core-a"));
  }

  @Test
  @Order(5)
  void theDatabaseFallsSilent_theFenceClosesByItself_outputsSafeWithinOneSecond_activeAgainAfter()
      throws Exception {
    await()
        .atMost(WAIT)
        .until(() -> gateway.gpio().isPresent() && airDump().state() == DigitalState.HIGH);
    DigitalOutput air = airDump();
    HeartbeatLog beats = heartbeatLog();
    EngineLoop engine = gateway.loop();
    await().atMost(WAIT).until(() -> beats.log.changes() >= 4);
    // Nothing passes to or from the database any more, and no connection is closed: the lock's
    // check waits for an answer, the server keeps the session and its lock, nobody hears a thing.
    long stalled = System.nanoTime();
    broker.databaseLink().stall();
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> air.state() == DigitalState.LOW && !gateway.role().equals("active"));
    long fenced = System.nanoTime();
    long safeAfterMs = (fenced - stalled) / 1_000_000;
    System.out.printf("silent database: outputs safe after %d ms%n", safeAfterMs);
    assertThat(safeAfterMs).isLessThan(1000);
    assertThat(lockSessions()).as("the server still holds the lock's session").isEqualTo(1);
    // No edge for the relay once the fence is closed (at most the pin driven low at the stop), and
    // no further pass.
    Thread.sleep(2000);
    assertThat(engine.passStartedNanos()).isLessThan(fenced + 100_000_000L);
    assertThat(beats.times().stream().filter(t -> t > fenced + 100_000_000L).count())
        .isLessThanOrEqualTo(1);
    // The network back, its connections reset: the session ends, and the gateway, alone, takes the
    // lock again at the next epoch with its interlocks asserted.
    broker.databaseLink().reset();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                gateway.role().equals("active")
                    && gateway.gpio().isPresent()
                    && airDump().state() == DigitalState.HIGH);
    assertThat(gateway.epoch()).isEqualTo(4);
  }

  private long lockSessions() {
    return db().count(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database ="
                + " (SELECT oid FROM pg_database WHERE datname = current_database())");
  }

  /** The heartbeat pin of the gateway's current start and its edges. */
  private record HeartbeatLog(
      DigitalOutput pin, io.sentinel.gpio.PinLog log, java.util.List<Long> at) {
    java.util.List<Long> times() {
      return at;
    }
  }

  private HeartbeatLog heartbeatLog() {
    var context = gateway.heartbeat().orElseThrow().context();
    DigitalOutput pin = context.io(GpioAdapter.ioId(HEARTBEAT), DigitalOutput.class);
    java.util.List<Long> at = new java.util.concurrent.CopyOnWriteArrayList<>();
    pin.addListener(e -> at.add(System.nanoTime()));
    return new HeartbeatLog(pin, io.sentinel.gpio.PinLog.of(context, HEARTBEAT), at);
  }

  private DigitalOutput airDump() {
    GpioAdapter adapter = gateway.gpio().orElseThrow();
    return adapter.context().io(GpioAdapter.ioId(AIR_DUMP), DigitalOutput.class);
  }

  private JsonObject engineCheck() {
    return check(live, "sentinel-engine");
  }

  private static JsonObject check(URI endpoint, String name) {
    Optional<JsonObject> found =
        new JsonObject(Http.get(endpoint))
            .getJsonArray("checks").stream()
                .map(JsonObject.class::cast)
                .filter(c -> c.getString("name").equals(name))
                .findFirst();
    return found.orElseThrow();
  }

  private TestDatabase db() {
    return broker.database();
  }
}
