package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.journal.Observation;
import io.sentinel.journal.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL stopped under a stream of observations and started again. The machine's shared server
 * cannot be stopped safely, so this runs on an embedded server of its own.
 */
class OutageTest {
  static final PassResult NOTHING =
      new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  static PassRecord pass(long i) {
    Instant at = Instant.parse("2026-11-02T05:00:00Z").plusMillis(i);
    return new PassRecord(
        at,
        List.of(
            new Observation(
                "boiler.ch1.flow-temp",
                Value.of(40 + i % 7),
                Quality.LIVE,
                "test",
                Optional.empty(),
                at)),
        NOTHING);
  }

  @Test
  void postgresStoppedMidStream_everyObservationOfferedDuringTheOutage_isLoggedInOrderOnce(
      @TempDir Path dir) throws Exception {
    Path data = dir.resolve("data");
    EmbeddedDatabase server = EmbeddedDatabase.start(data, TestDatabase.binaries(), true);
    int port = server.port();
    DbUrl url = server.url();
    Migrations.migrate(url);
    Pool pool = Store.pool(TestDatabase.VERTX, url);
    List<ControlEvent> alarms = new CopyOnWriteArrayList<>();
    List<SelfPoint> selfPoints = new CopyOnWriteArrayList<>();
    Journal.Settings settings =
        new Journal.Settings(
            20_000,
            2_000,
            dir.resolve("spool"),
            64L << 20,
            1L << 20,
            Duration.ofSeconds(2),
            Duration.ofMillis(200),
            Duration.ofDays(30));
    Journal journal =
        Journal.open(
            pool,
            settings,
            (e, p) -> {
              alarms.add(e);
              selfPoints.add(p);
            },
            InstantSource.system());
    AtomicLong offered = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Long> seqs = new ArrayList<>();
    // The engine's side: a pass every half millisecond or so, never waiting for the journal.
    Thread engine =
        new Thread(
            () -> {
              long i = 0;
              while (!stop.get()) {
                long seq = journal.offer(pass(i++), List.of());
                synchronized (seqs) {
                  seqs.add(seq);
                }
                offered.incrementAndGet();
                java.util.concurrent.locks.LockSupport.parkNanos(500_000);
              }
            });
    engine.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> journal.durableSeq() > 500);
    server.close();
    long stoppedAt = offered.get();
    await().atMost(Duration.ofSeconds(30)).until(journal::degraded);
    await().atMost(Duration.ofSeconds(30)).until(() -> offered.get() > stoppedAt + 3000);
    assertThat(Files.list(dir.resolve("spool")).anyMatch(f -> f.toString().endsWith(".ndjson")))
        .isTrue();
    long duringOutage = offered.get() - stoppedAt;

    EmbeddedDatabase again = EmbeddedDatabase.start(data, TestDatabase.binaries(), true, port);
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> !journal.degraded());
      stop.set(true);
      engine.join();
      assertThat(journal.drain(Duration.ofSeconds(60))).isTrue();
      journal.close();
      pool.close();

      assertThat(duringOutage).isGreaterThan(3000);
      assertThat(seqs).doesNotContain(-1L);
      List<Long> logged = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(url.jdbcUrl(), "postgres", null);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT seq FROM observations ORDER BY received_at, seq")) {
        while (rs.next()) {
          logged.add(rs.getLong(1));
        }
      }
      // Every observation offered, before, during and after the outage: in order, none twice.
      assertThat(logged).containsExactlyElementsOf(seqs);
      assertThat(alarms)
          .extracting(ControlEvent::kind)
          .containsSubsequence("journal-degraded", "journal-recovered");
      assertThat(selfPoints).extracting(SelfPoint::name).contains("journal.degraded");
    } finally {
      again.close();
    }
  }

  @Test
  void fullSpool_isLoud_countsWhatItLost_andLogsTheLossWhenThereIsRoom(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    EmbeddedDatabase server = EmbeddedDatabase.start(data, TestDatabase.binaries(), true);
    int port = server.port();
    DbUrl url = server.url();
    Migrations.migrate(url);
    Pool pool = Store.pool(TestDatabase.VERTX, url);
    List<ControlEvent> alarms = new CopyOnWriteArrayList<>();
    List<SelfPoint> selfPoints = new CopyOnWriteArrayList<>();
    Journal.Settings settings =
        new Journal.Settings(
            20_000,
            500,
            dir.resolve("spool"),
            64 << 10,
            16 << 10,
            Duration.ofSeconds(2),
            Duration.ofMillis(200),
            Duration.ofDays(30));
    Journal journal =
        Journal.open(
            pool,
            settings,
            (e, p) -> {
              alarms.add(e);
              selfPoints.add(p);
            },
            InstantSource.system());
    server.close();
    for (int i = 0; i < 3000; i++) {
      journal.offer(pass(i), List.of());
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> journal.stats().lost() > 0);
    assertThat(alarms).extracting(ControlEvent::kind).contains("journal-overflow");
    assertThat(selfPoints)
        .anyMatch(p -> p.name().equals("journal.overflow") && p.value().equals(Value.TRUE));
    EmbeddedDatabase again = EmbeddedDatabase.start(data, TestDatabase.binaries(), true, port);
    try {
      assertThat(journal.drain(Duration.ofSeconds(60))).isTrue();
      long lost = journal.stats().lost();
      journal.close();
      pool.close();
      try (Connection c = DriverManager.getConnection(url.jdbcUrl(), "postgres", null);
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT (SELECT count(*) FROM observations),"
                      + " (SELECT message FROM control_events WHERE kind = 'journal-lost')")) {
        rs.next();
        assertThat(rs.getLong(1) + lost).isEqualTo(3000);
        assertThat(rs.getString(2))
            .isEqualTo(lost + " journal records were lost while the journal was full");
      }
      assertThat(selfPoints)
          .anyMatch(p -> p.name().equals("journal.overflow") && p.value().equals(Value.FALSE));
    } finally {
      again.close();
    }
  }
}
