package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tail a restart matches messages delivered again against: the MQTT samples after the last
 * acknowledgement mark (and some before it), from PostgreSQL and from the journal's unfed records,
 * in the log's order.
 */
class RedeliveryTailTest {
  private static final Instant T = Instant.parse("2026-12-01T20:00:00.123456789Z");
  private static final PassResult NOTHING =
      new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  private static PassRecord pass(String source, double v) {
    return new PassRecord(
        T,
        List.of(
            new Observation(
                "load", Value.of(v), Quality.LIVE, source, Optional.of(T.minusSeconds(1)), T)),
        NOTHING);
  }

  private static String key(double v) {
    return RedeliveryTail.key("mqtt:load", "load", Value.of(v), Optional.of(T.minusSeconds(1)));
  }

  @Test
  void samplesAfterTheMark_fromPostgresAndTheUnfedJournal_inOrder(@TempDir Path dir)
      throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      Pool pool = Store.pool(TestDatabase.VERTX, db.url());
      JournalSettings settings = JournalSettings.defaults(dir);
      Journal j = Journal.open(pool, settings, (e, p) -> {}, TestClock.startingAt(T));
      long first = j.offer(pass("mqtt:load", 1), List.of());
      j.offer(pass("mqtt:load", 2), List.of());
      j.offerAcknowledged(first, T);
      j.offer(pass("gpio:17", 9), List.of()); // not MQTT: never delivered again
      j.offer(pass("mqtt:load", 3), List.of());
      assertThat(j.drain(Duration.ofSeconds(30))).isTrue();
      j.close();

      // PostgreSQL shut out: what follows stays in the journal's folder, unfed.
      db.executeOnServer("ALTER DATABASE " + db.url().database() + " ALLOW_CONNECTIONS false");
      db.executeOnServer(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
              + db.url().database()
              + "' AND pid <> pg_backend_pid()");
      pool.close();
      Pool away = Store.pool(TestDatabase.VERTX, db.url());
      j = Journal.open(away, settings, (e, p) -> {}, TestClock.startingAt(T));
      j.offer(pass("mqtt:load", 4), List.of());
      assertThat(j.flush(Duration.ofSeconds(10))).isTrue();
      j.close();
      away.close();
      db.executeOnServer("ALTER DATABASE " + db.url().database() + " ALLOW_CONNECTIONS true");

      Pool back = Store.pool(TestDatabase.VERTX, db.url());
      // Opened without its feeder reaching PostgreSQL first: the tail is read as a start reads it.
      Journal reopened = Journal.open(back, settings, (e, p) -> {}, TestClock.startingAt(T));
      try {
        RedeliveryTail.Tail tail =
            RedeliveryTail.read(
                back, true, reopened.unfedState(), reopened.unfedTail(), Duration.ofSeconds(10));
        assertThat(tail.mark()).isEqualTo(first);
        // 1 is at the mark: its PUBACK may not have left the process before it died.
        assertThat(tail.keys()).containsExactly(key(1), key(2), key(3), key(4));

        RedeliveryTail.Tail journalAlone =
            RedeliveryTail.read(
                back, false, reopened.unfedState(), reopened.unfedTail(), Duration.ofSeconds(10));
        assertThat(journalAlone).isEqualTo(RedeliveryTail.Tail.NONE);
      } finally {
        reopened.close();
        back.close();
      }
    }
  }

  @Test
  void markPastEverythingLogged_aCrash_theSamplesAtTheMarkAreStillMatched(@TempDir Path dir)
      throws Exception {
    // The PUBACKs handed to the client and their mark journaled, then SIGKILL before the client
    // wrote them: the broker delivers 1 and 2 again.
    RedeliveryTail.Tail tail = tailAfter(dir, false);
    assertThat(tail.keys()).containsExactly(key(1), key(2));
  }

  @Test
  void aCleanStop_nothingIsMatched(@TempDir Path dir) throws Exception {
    // The client disconnected after its last PUBACK: a queued 1 after the restart is a new sample.
    RedeliveryTail.Tail tail = tailAfter(dir, true);
    assertThat(tail.keys()).isEmpty();
  }

  /** Two samples logged and acknowledged, the mark journaled; then a clean stop or a crash. */
  private static RedeliveryTail.Tail tailAfter(Path dir, boolean cleanStop) throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      Pool pool = Store.pool(TestDatabase.VERTX, db.url());
      Journal j =
          Journal.open(pool, JournalSettings.defaults(dir), (e, p) -> {}, TestClock.startingAt(T));
      try {
        j.offer(pass("mqtt:load", 1), List.of());
        long last = j.offer(pass("mqtt:load", 2), List.of());
        j.offerAcknowledged(last, T);
        if (cleanStop) {
          j.offerStopped(T);
        }
        assertThat(j.drain(Duration.ofSeconds(30))).isTrue();
        RedeliveryTail.Tail tail =
            RedeliveryTail.read(pool, true, List.of(), List.of(), Duration.ofSeconds(10));
        assertThat(tail.mark()).isEqualTo(last);
        return tail;
      } finally {
        j.close();
        pool.close();
      }
    }
  }
}
