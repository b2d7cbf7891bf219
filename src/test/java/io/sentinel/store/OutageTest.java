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
  static final Instant T = Instant.parse("2026-11-02T05:00:00Z");
  static final PassResult NOTHING =
      new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  static PassRecord pass(long i) {
    Instant at = T.plusMillis(i);
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

    Rig(Path dir, int queue, int batchRows, long maxBytes, long segmentBytes) throws IOException {
      this(dir, queue, batchRows, maxBytes, segmentBytes, Duration.ofSeconds(60));
    }

    Rig(Path dir, int queue, int batchRows, long maxBytes, long segmentBytes, Duration stuckAfter)
        throws IOException {
      data = dir.resolve("data");
      server = EmbeddedDatabase.start(data, TestDatabase.binaries(), true);
      port = server.port();
      url = server.url();
      Migrations.migrate(url);
      pool = Store.pool(TestDatabase.VERTX, url);
      JournalSettings settings =
          new JournalSettings(
              queue,
              batchRows,
              dir.resolve("journal"),
              maxBytes,
              segmentBytes,
              Duration.ofSeconds(2),
              Duration.ofMillis(200),
              Duration.ofSeconds(1),
              Duration.ofDays(30),
              stuckAfter);
      journal =
          Journal.open(
              pool,
              settings,
              (e, p) -> {
                alarms.add(e);
                selfPoints.add(p);
              },
              TestClock.startingAt(T));
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
    try (Rig rig = new Rig(dir, 20_000, 2_000, 64L << 20, 1L << 20)) {
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
      // More than the journal keeps in memory for the feeder: it reads the outage's from disk.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> offered.get() > stoppedAt + RecentRecords.MAX_ROWS + 1000);
      // PostgreSQL away: the passes are still synced to the journal, so still acknowledged.
      long durableInOutage = rig.journal.durableSeq();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> rig.journal.durableSeq() > durableInOutage + 1000);
      try (var files = Files.list(dir.resolve("journal"))) {
        assertThat(files.filter(f -> f.toString().endsWith(".seg")).count()).isPositive();
      }
      long duringOutage = offered.get() - stoppedAt;

      rig.startServer();
      await().atMost(Duration.ofSeconds(60)).until(() -> !rig.journal.degraded());
      stop.set(true);
      engine.join();
      assertThat(rig.journal.drain(Duration.ofSeconds(60))).isTrue();
      // The outage's records outgrew what the journal keeps in memory: read back from disk, and
      // once the feeder had caught up, taken as written again.
      JournalStats fed = rig.journal.stats();
      rig.closeJournal();
      assertThat(fed.fedFromDisk()).isPositive();
      assertThat(fed.fedFromMemory()).isPositive();
      assertThat(fed.fedFromDisk() + fed.fedFromMemory()).isEqualTo(fed.records());

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

  /**
   * PostgreSQL answers every batch with an error (a stall once that lasts), then stops: from its
   * absence on the journal merely waits, however long. The soak of 2026-12-04 had liveness down a
   * minute into an outage: a stopping server answers its sessions with an error (57P01) before
   * connections are refused, and the refusal's clock ran on through the outage.
   */
  @Test
  void anOutageAfterRefusals_isNoStall(@TempDir Path dir) throws Exception {
    try (Rig rig = new Rig(dir, 1_000, 500, 64L << 20, 1L << 20, Duration.ofSeconds(2))) {
      try (var c = TestDatabase.connect(rig.url);
          var s = c.createStatement()) {
        s.execute(
            "CREATE FUNCTION refuse_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE"
                + " EXCEPTION 'observations take nothing (test)'; END $$");
        s.execute(
            "CREATE TRIGGER refuse_all BEFORE INSERT ON observations FOR EACH STATEMENT EXECUTE"
                + " FUNCTION refuse_all()");
      }
      rig.journal.offer(pass(0), List.of());
      await().atMost(Duration.ofSeconds(20)).until(rig.journal::stuck);
      rig.stopServer();
      await().atMost(Duration.ofSeconds(20)).until(() -> !rig.journal.stuck());
      Thread.sleep(3_000); // past stuck-after: an absence is no stall
      assertThat(rig.journal.stall()).isEmpty();
      assertThat(rig.journal.degraded()).isTrue();
      rig.startServer();
      rig.closeJournal();
    }
  }

  @Test
  void fullJournal_isLoud_waits_thenCountsWhatItLost_andLogsTheLossWhenThereIsRoom(
      @TempDir Path dir) throws Exception {
    try (Rig rig = new Rig(dir, 1_000, 500, 64 << 10, 16 << 10)) {
      rig.stopServer();
      for (int i = 0; i < 3000; i++) {
        rig.journal.offer(pass(i), List.of());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> rig.journal.stats().lost() > 0);
      // At the bound the writer waits: the durable mark stops (no acknowledgement goes out).
      assertThat(rig.journal.full()).isTrue();
      long durable = rig.journal.durableSeq();
      Thread.sleep(300);
      assertThat(rig.journal.durableSeq()).isEqualTo(durable);
      assertThat(rig.journal.stats().bytes()).isLessThanOrEqualTo(64 << 10);
      assertThat(rig.alarms)
          .extracting(ControlEvent::kind)
          .contains("journal-full", "journal-overflow");
      assertThat(rig.selfPoints)
          .anyMatch(p -> p.name().equals("journal.full") && p.value().equals(Value.TRUE));
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
                      + " (SELECT sum(split_part(message, ' ', 1)::bigint) FROM control_events"
                      + " WHERE kind = 'journal-lost'"
                      + " AND message LIKE '% journal records were lost while the journal was full')")) {
        rs.next();
        // Every pass is logged or counted lost; the count also holds the journal's own events
        // (journal-full, journal-degraded) that found the queue full: a few at most.
        assertThat(rs.getLong(1)).isLessThan(3000);
        assertThat(rs.getLong(1) + lost).isBetween(3000L, 3005L);
        // One loss episode or several (the queue refills while the writer waits): all counted.
        assertThat(rs.getLong(2)).isEqualTo(lost);
      }
      assertThat(rig.selfPoints)
          .anyMatch(p -> p.name().equals("journal.overflow") && p.value().equals(Value.FALSE));
    }
  }
}
