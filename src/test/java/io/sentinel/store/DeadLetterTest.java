package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's wedge: a row PostgreSQL refuses (a device timestamp outside its range, a NUL in a
 * string) is set aside in dead_letters with the reason, counted and evented, and every other row,
 * before and after it, reaches its table in order.
 */
class DeadLetterTest {
  static final Instant T = Instant.parse("2026-11-02T05:00:00Z");
  static final PassResult NOTHING =
      new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  static PassRecord pass(int i, Optional<Instant> deviceTime, String source) {
    Instant at = T.plusMillis(i);
    return new PassRecord(
        at,
        List.of(new Observation("zone.temp", Value.of(i), Quality.LIVE, source, deviceTime, at)),
        NOTHING);
  }

  @Test
  void refusedRows_areSetAside_withTheirReason_andTheRestFlowsOnInOrder(@TempDir Path dir)
      throws Exception {
    List<ControlEvent> alarms = new CopyOnWriteArrayList<>();
    try (TestDatabase db = TestDatabase.create()) {
      var pool = Store.pool(TestDatabase.VERTX, db.url());
      Journal journal =
          Journal.open(
              pool,
              JournalSettings.defaults(dir),
              (e, p) -> alarms.add(e),
              TestClock.startingAt(T));
      List<Long> good = new ArrayList<>();
      long outOfRange = -1;
      long nul = -1;
      for (int i = 0; i < 2_000; i++) {
        if (i == 700) {
          outOfRange =
              journal.offer(
                  pass(i, Optional.of(Instant.parse("+294277-01-01T00:00:00Z")), "mqtt:a"),
                  List.of());
        } else if (i == 1_400) {
          nul = journal.offer(pass(i, Optional.empty(), "mqtt:a\u0000b"), List.of());
        } else {
          good.add(journal.offer(pass(i, Optional.empty(), "mqtt:a"), List.of()));
        }
      }
      try {
        assertThat(journal.drain(Duration.ofSeconds(60))).isTrue();
        assertThat(journal.stats().deadLetters()).isEqualTo(2);
        assertThat(journal.degraded()).isFalse();
        assertThat(journal.stuck()).isFalse();
      } finally {
        journal.close();
        pool.close();
      }
      assertThat(db.longs("SELECT seq FROM observations ORDER BY seq"))
          .containsExactlyElementsOf(good);
      List<List<String>> dead =
          db.rows("SELECT seq::text, table_name, reason, row_values FROM dead_letters ORDER BY id");
      assertThat(dead.get(0).subList(0, 2)).containsExactly("" + outOfRange, "observations");
      assertThat(dead.get(0).get(2)).containsIgnoringCase("out of range");
      assertThat(dead.get(0).get(3)).contains("+294277-01-01T00:00:00Z");
      assertThat(dead.get(1).subList(0, 2)).containsExactly("" + nul, "observations");
      assertThat(dead.get(1).get(3)).contains("mqtt:a\\u0000b");
      assertThat(alarms)
          .filteredOn(e -> e.kind().equals("journal-dead-letter"))
          .hasSize(2)
          .allSatisfy(e -> assertThat(e.message()).contains("set aside in dead_letters"));
      assertThat(db.count("SELECT count(*) FROM control_events WHERE kind = 'journal-dead-letter'"))
          .isEqualTo(2);
    }
  }
}
