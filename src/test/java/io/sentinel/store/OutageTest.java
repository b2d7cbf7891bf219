package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Observation o =
        new Observation(
            "boiler.ch1.flow-temp",
            Value.of(40 + i % 7),
            Quality.LIVE,
            "test",
            Optional.empty(),
            at);
    return new PassRecord(at, List.of(o), NOTHING);
  }

  /** A journal on an embedded server of the test's own, the server's switch, and the alarms. */
  static final class Rig implements AutoCloseable {
    final Path data;
    final DbUrl url;
    final int port;
    final Pool pool;
    final Journal journal;
    final List<ControlEvent> alarms = new CopyOnWriteArrayList<>();
    final List<SelfPoint> selfPoints = new CopyOnWriteArrayList<>();
    EmbeddedDatabase server;

    Rig(Path dir, int batchRows, long spoolBytes, long segmentBytes) throws IOException {
      data = dir.resolve("data");
      server = EmbeddedDatabase.start(data, TestDatabase.binaries(), true);
      port = server.port();
      url = server.url();
      Migrations.migrate(url);
      pool = Store.pool(TestDatabase.VERTX, url);
      Journal.Settings settings =
          new Journal.Settings(
              20_000,
              batchRows,
              dir.resolve("spool"),
              spoolBytes,
              segmentBytes,
              Duration.ofSeconds(2),
              Duration.ofMillis(200),
              Duration.ofDays(30));
      journal =
          Journal.open(
              pool,
              settings,
              (e, p) -> {
                alarms.add(e);
                selfPoints.add(p);
              },
              InstantSource.system());
    }

    void stopServer() throws IOException {
      server.close();
    }

    void startServer() throws IOException {
      server = EmbeddedDatabase.start(data, TestDatabase.binaries(), true, port);
    }

    /** Closes the journal (flushed) and its pool, leaving the server up for a look. */
    void closeJournal() {
      journal.close();
      pool.close();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  @Test
  void postgresStoppedMidStream_everyObservationOfferedDuringTheOutage_isLoggedInOrderOnce(
      @TempDir Path dir) throws Exception {
    try (Rig rig = new Rig(dir, 2_000, 64L << 20, 1L << 20)) {
      AtomicLong offered = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      List<Long> seqs = new ArrayList<>();
      // The engine's side: a pass every half millisecond or so, never waiting for the journal.
      Thread engine =
          new Thread(
              () -> {
                long i = 0;
                while (!stop.get()) {
                  long seq = rig.journal.offer(pass(i++), List.of());
                  synchronized (seqs) {
                    seqs.add(seq);
                  }
                  offered.incrementAndGet();
                  java.util.concurrent.locks.LockSupport.parkNanos(500_000);
                }
              });
      engine.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> rig.journal.durableSeq() > 500);
      rig.stopServer();
      long stoppedAt = offered.get();
      await().atMost(Duration.ofSeconds(30)).until(rig.journal::degraded);
      await().atMost(Duration.ofSeconds(30)).until(() -> offered.get() > stoppedAt + 3000);
      try (var files = Files.list(dir.resolve("spool"))) {
        assertThat(files.anyMatch(f -> f.toString().endsWith(".ndjson"))).isTrue();
      }
      long duringOutage = offered.get() - stoppedAt;

      rig.startServer();
      await().atMost(Duration.ofSeconds(60)).until(() -> !rig.journal.degraded());
      stop.set(true);
      engine.join();
      assertThat(rig.journal.drain(Duration.ofSeconds(60))).isTrue();
      rig.closeJournal();

      assertThat(duringOutage).isGreaterThan(3000);
      assertThat(seqs).doesNotContain(-1L);
      // Every observation offered, before, during and after the outage: in order, none twice.
      List<Long> logged = new ArrayList<>();
      try (var c = TestDatabase.connect(rig.url);
          var s = c.createStatement();
          var rs = s.executeQuery("SELECT seq FROM observations ORDER BY received_at, seq")) {
        while (rs.next()) {
          logged.add(rs.getLong(1));
        }
      }
      assertThat(logged).containsExactlyElementsOf(seqs);
      assertThat(rig.alarms)
          .extracting(ControlEvent::kind)
          .containsSubsequence("journal-degraded", "journal-recovered");
      assertThat(rig.selfPoints).extracting(SelfPoint::name).contains("journal.degraded");
    }
  }

  @Test
  void fullSpool_isLoud_countsWhatItLost_andLogsTheLossWhenThereIsRoom(@TempDir Path dir)
      throws Exception {
    try (Rig rig = new Rig(dir, 500, 64 << 10, 16 << 10)) {
      rig.stopServer();
      for (int i = 0; i < 3000; i++) {
        rig.journal.offer(pass(i), List.of());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> rig.journal.stats().lost() > 0);
      assertThat(rig.alarms).extracting(ControlEvent::kind).contains("journal-overflow");
      assertThat(rig.selfPoints)
          .anyMatch(p -> p.name().equals("journal.overflow") && p.value().equals(Value.TRUE));

      rig.startServer();
      assertThat(rig.journal.drain(Duration.ofSeconds(60))).isTrue();
      long lost = rig.journal.stats().lost();
      rig.closeJournal();
      try (var c = TestDatabase.connect(rig.url);
          var s = c.createStatement();
          var rs =
              s.executeQuery(
                  "SELECT (SELECT count(*) FROM observations),"
                      + " (SELECT message FROM control_events WHERE kind = 'journal-lost')")) {
        rs.next();
        assertThat(rs.getLong(1) + lost).isEqualTo(3000);
        assertThat(rs.getString(2))
            .isEqualTo(lost + " journal records were lost while the journal was full");
      }
      assertThat(rig.selfPoints)
          .anyMatch(p -> p.name().equals("journal.overflow") && p.value().equals(Value.FALSE));
    }
  }
}
