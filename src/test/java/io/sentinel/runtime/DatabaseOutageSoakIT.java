package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.DbUrl;
import io.sentinel.store.EmbeddedDatabase;
import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 24's outage under load, end to end on the packaged application: PostgreSQL stops for two
 * minutes ({@code -Dsentinel.soak.down-seconds}) while a device publishes 5,000 samples a second
 * ({@code -Dsentinel.soak.rate}) at QoS 1. The gateway goes on deciding (a rule commands during the
 * outage), stays alive, and once PostgreSQL is back every sample the device published is in the
 * observations table, with no dead letter. PostgreSQL is a server of the test's own (the machine's
 * cannot be stopped safely).
 *
 * <p>Not part of {@code verify}: {@code ./mvnw -B verify -Psoak} (about four minutes).
 */
class DatabaseOutageSoakIT {
  private static final int RATE = Integer.getInteger("sentinel.soak.rate", 5_000);
  private static final int UP_SECONDS = 15;
  private static final int DOWN_SECONDS = Integer.getInteger("sentinel.soak.down-seconds", 120);
  private static final int SAMPLES = RATE * (UP_SECONDS + DOWN_SECONDS + UP_SECONDS);
  private static final int DEVICE_WINDOW = 5_000;

  private PackagedGateway rig;
  private EmbeddedDatabase db;
  private DbUrl url;
  private BrokerClient recorder;
  private BrokerClient device;
  private Process gateway;
  private int httpPort;

  @BeforeEach
  void setUp() throws IOException {
    rig =
        PackagedGateway.valveWhileWarm(
            "soak", 100_000_000, Duration.ofSeconds(DOWN_SECONDS + 240L), "status", "commands/#");
    recorder = rig.recorder;
    device = rig.device;
    db = EmbeddedDatabase.start(rig.dir.resolve("pg"), TestDatabase.binaries(), true);
    url = db.url();
    try (ServerSocket s = new ServerSocket(0)) {
      httpPort = s.getLocalPort();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (gateway != null && gateway.isAlive()) {
        gateway.destroy();
        gateway.waitFor(20, TimeUnit.SECONDS);
      }
      db.close();
    } finally {
      rig.close();
    }
  }

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void postgresDownForTwoMinutesUnder5000PerSecond_everySampleLogged_decisionsGoOn()
      throws Exception {
    gateway = startGateway();
    await("gateway online", () -> !recorder.on(topic("status")).isEmpty());

    AtomicInteger published = new AtomicInteger();
    Semaphore window = new Semaphore(DEVICE_WINDOW);
    Thread publisher =
        new Thread(
            () -> {
              long t0 = System.nanoTime();
              for (int i = 0; i < SAMPLES; i++) {
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
                        topic("points/soak.load"),
                        Integer.toString(i).getBytes(StandardCharsets.UTF_8),
                        false)
                    .whenComplete((ack, error) -> window.release());
                published.incrementAndGet();
              }
            },
            "soak-device");
    publisher.setDaemon(true);
    long started = System.nanoTime();
    publisher.start();

    await("load under way", () -> published.get() >= RATE * UP_SECONDS);
    db.close();
    long stoppedAt = System.nanoTime();
    int publishedAtStop = published.get();

    // While PostgreSQL is away the gateway decides: warm, then cold, commands the valve each time.
    int before = recorder.on(topic("commands/soak.valve")).size();
    device.publish(topic("points/soak.temp"), "50");
    await("valve commanded open during the outage", () -> commands() > before);
    device.publish(topic("points/soak.temp"), "20");
    await("valve released during the outage", () -> commands() > before + 1);
    int liveProbes = 0;
    while (System.nanoTime() - stoppedAt < TimeUnit.SECONDS.toNanos(DOWN_SECONDS)) {
      assertThat(health("live")).as("liveness during the outage").isEqualTo(200);
      liveProbes++;
      Thread.sleep(5_000);
    }
    int readyWhileDown = health("ready");
    db = EmbeddedDatabase.start(rig.dir.resolve("pg"), TestDatabase.binaries(), true, url.port());
    int publishedAtStart = published.get();

    publisher.join(rig.left().toMillis());
    assertThat(published.get()).isEqualTo(SAMPLES);
    double offered = SAMPLES / ((System.nanoTime() - started) / 1e9);
    await(
        "every sample logged",
        () ->
            count("SELECT count(DISTINCT value_num) FROM observations WHERE point_id = 'soak.load'")
                == SAMPLES);
    long drained = System.nanoTime();
    assertThat(count("SELECT count(*) FROM dead_letters")).isZero();
    assertThat(count("SELECT count(*) FROM commands WHERE point_id = 'soak.valve'"))
        .as("the outage's commands are logged too")
        .isGreaterThanOrEqualTo(2);
    await("ready again", () -> health("ready") == 200);

    System.out.printf(
        "DatabaseOutageSoakIT (%s): %d samples at %.0f/s offered; PostgreSQL down %d s (%d"
            + " published before, %d by its return); liveness 200 at %d probes, readiness %d"
            + " while down; every sample logged %.1f s after the device finished%n",
        rig.mqtt,
        SAMPLES,
        offered,
        DOWN_SECONDS,
        publishedAtStop,
        publishedAtStart,
        liveProbes,
        readyWhileDown,
        (drained - started) / 1e9 - SAMPLES / (double) RATE);
  }

  private Process startGateway() throws IOException {
    return rig.start(
        "",
        List.of(
            "-Dquarkus.http.port=" + httpPort,
            "-Dsentinel.home=" + rig.dir.resolve("home"),
            "-Dsentinel.journal.dir=" + rig.dir.resolve("journal")),
        Map.of(
            "SENTINEL_DB_URL",
            url.toString(), // the embedded server has no password
            "SENTINEL_MQTT_VERSION",
            rig.embeddedBroker() ? "3" : "5"));
  }

  private int commands() {
    return recorder.on(topic("commands/soak.valve")).size();
  }

  private int health(String which) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + httpPort + "/q/health/" + which))
                  .timeout(Duration.ofSeconds(15))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      System.out.println("DatabaseOutageSoakIT: /q/health/" + which + " did not answer: " + e);
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private long count(String query) {
    try (Connection c =
            DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(""));
        ResultSet r = c.createStatement().executeQuery(query)) {
      r.next();
      return r.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  private String topic(String rest) {
    return rig.topic(rest);
  }

  private void await(String what, BooleanSupplier condition) {
    rig.await(what, condition);
  }
}
