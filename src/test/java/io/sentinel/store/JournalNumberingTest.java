package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.sqlclient.Pool;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a journal with a new folder starts numbering. CrashTest once saw a durable mark of 1.79e15
 * (epoch milliseconds times 1,000): its child's journal took PostgreSQL's slow first answer (a cold
 * JVM's first connection, a one-second write timeout, a loaded machine) for an absence and numbered
 * from the clock, with the audit chain started anew. PostgreSQL slow but there is waited for;
 * PostgreSQL not there is not.
 */
class JournalNumberingTest {
  private static final Instant T = Instant.parse("2026-12-01T19:00:00Z");
  private static final PassResult NOTHING =
      new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  /** The crash test child's settings: a one-second write timeout. */
  private static JournalSettings settings(Path dir) {
    return new JournalSettings(
        1_000,
        5_000,
        dir,
        64L << 20,
        4L << 20,
        Duration.ofSeconds(1),
        Duration.ofMillis(200),
        Duration.ofSeconds(1),
        Duration.ofDays(30),
        Duration.ofSeconds(60));
  }

  private static PassRecord pass(int observations) {
    List<Observation> obs =
        java.util.stream.IntStream.range(0, observations)
            .mapToObj(
                i ->
                    new Observation(
                        "zone." + i + ".temp",
                        Value.of(20 + i),
                        Quality.LIVE,
                        "mqtt:zone",
                        Optional.empty(),
                        T))
            .toList();
    return new PassRecord(T, obs, NOTHING);
  }

  @Test
  void newFolder_postgresSlowToAnswer_numbersOnFromItsLog_notFromTheClock(@TempDir Path dir)
      throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      Pool direct = Store.pool(TestDatabase.VERTX, db.url());
      Journal first =
          Journal.open(direct, settings(dir.resolve("a")), (e, p) -> {}, TestClock.startingAt(T));
      assertThat(first.offer(pass(3), List.of())).isEqualTo(3);
      assertThat(first.drain(Duration.ofSeconds(30))).isTrue();
      first.close();
      direct.close();

      // A new folder (a new machine, a wiped data folder); PostgreSQL's first answer takes longer
      // than the write timeout.
      try (SlowServer slow =
          new SlowServer(db.url().host(), db.url().port(), Duration.ofMillis(2_500))) {
        DbUrl relayed =
            new DbUrl(
                "127.0.0.1",
                slow.port(),
                db.url().database(),
                db.url().user(),
                db.url().password());
        Pool pool = Store.pool(TestDatabase.VERTX, relayed);
        Journal second =
            Journal.open(pool, settings(dir.resolve("b")), (e, p) -> {}, TestClock.startingAt(T));
        try {
          assertThat(second.offer(pass(2), List.of()))
              .as("the next numbers after PostgreSQL's 3, not the clock's")
              .isEqualTo(5);
          assertThat(second.drain(Duration.ofSeconds(30))).isTrue();
        } finally {
          second.close();
          pool.close();
        }
      }
      assertThat(db.longs("SELECT seq FROM observations ORDER BY seq"))
          .containsExactly(1L, 2L, 3L, 4L, 5L);
    }
  }

  @Test
  void newFolder_nothingListens_startsAtOnce_numberedFromTheClock(@TempDir Path dir)
      throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Pool pool =
        Store.pool(
            TestDatabase.VERTX,
            new DbUrl("127.0.0.1", port, "sentinel", "postgres", Optional.empty()));
    long before = System.currentTimeMillis() * 1000;
    long t0 = System.nanoTime();
    Journal journal =
        Journal.open(pool, settings(dir), (e, p) -> {}, java.time.InstantSource.system());
    try {
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .as("no wait for a PostgreSQL that is not there")
          .isLessThan(LogEnd.PATIENCE);
      assertThat(journal.offer(pass(1), List.of())).isGreaterThan(before);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(journal::degraded);
    } finally {
      journal.close();
      pool.close();
    }
  }
}
