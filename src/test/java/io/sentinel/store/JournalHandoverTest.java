package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.audit.AuditEntry;
import io.sentinel.audit.AuditVerifier;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two cores' journals (two folders) writing one log in PostgreSQL in turns, as a site with a
 * standby does (docs/standby.md, "The log across takeovers"): with the handover at each tenure
 * every row keeps its number and the audit chain is one; without it the second tenure of a folder
 * numbers on from its own end, its rows are dropped as duplicates and the chain breaks.
 */
class JournalHandoverTest {
  private static final Instant T = Instant.parse("2026-11-02T05:00:00Z");
  private final TestDatabase db = TestDatabase.create();
  private final io.vertx.sqlclient.Pool pool = Store.pool(TestDatabase.VERTX, db.url());
  @TempDir Path dir;
  private int passes;

  @AfterEach
  void close() {
    pool.close();
    db.close();
  }

  @Test
  void tenuresInTurn_eachFolderContinuesTheSharedLog_oneIntactChain() throws Exception {
    Path a = dir.resolve("journal-a");
    Path b = dir.resolve("journal-b");
    assertThat(handover(a)).isEqualTo(JournalHandover.Outcome.CONTINUES); // a new folder
    tenure(a, 3, 0);
    assertThat(handover(b)).isEqualTo(JournalHandover.Outcome.CONTINUES);
    tenure(b, 3, 2); // lost the lock with two passes it never fed
    // a fed everything; b wrote since: a's numbering moves to PostgreSQL's end.
    assertThat(handover(a)).isEqualTo(JournalHandover.Outcome.FOLLOWS_DATABASE);
    tenure(a, 3, 0);
    // b's two unfed passes carry numbers a has used since: set aside, not fed.
    assertThat(handover(b)).isEqualTo(JournalHandover.Outcome.SET_ASIDE);
    try (Stream<Path> beside = Files.list(dir)) {
      assertThat(beside.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("journal-b.set-aside-"));
    }
    tenure(b, 3, 0);
    // Nobody wrote after b's last feed: its folder goes on as it is.
    assertThat(handover(b)).isEqualTo(JournalHandover.Outcome.CONTINUES);
    tenure(b, 1, 0);

    assertThat(db.count("SELECT count(*) FROM observations")).isEqualTo(13);
    assertThat(db.count("SELECT count(DISTINCT seq) FROM observations")).isEqualTo(13);
    AuditVerifier.Verdict verdict = new History(pool, Duration.ofSeconds(10)).verifyAudit();
    assertThat(verdict.intact()).as(verdict.describe()).isTrue();
    assertThat(verdict.checked()).isEqualTo(13);
  }

  @Test
  void withoutTheHandover_aFolderBehindTheLog_losesItsRowsAndBreaksTheChain() throws Exception {
    Path a = dir.resolve("journal-a");
    Path b = dir.resolve("journal-b");
    tenure(a, 3, 0);
    tenure(b, 3, 0);
    tenure(a, 5, 0); // numbers 4 to 8: 4 to 6 are b's

    // a's rows 4 to 6 take b's numbers (observations are keyed by time and number, so they are
    // kept, numbered twice); its audit records 4 to 6 are dropped as duplicates, and its 7 is
    // chained to its own 6, not b's.
    assertThat(db.count("SELECT count(*) FROM observations")).isEqualTo(11);
    assertThat(db.count("SELECT count(DISTINCT seq) FROM observations")).isEqualTo(8);
    assertThat(db.count("SELECT count(*) FROM audit_log")).isEqualTo(8);
    assertThat(new History(pool, Duration.ofSeconds(10)).verifyAudit().intact()).isFalse();
  }

  private JournalHandover.Outcome handover(Path folder) throws Exception {
    return JournalHandover.prepare(
        folder, JournalSettings.defaults(folder).segmentBytes(), db.url(), TestClock.startingAt(T));
  }

  /**
   * A core's tenure on {@code folder}: {@code fed} passes that reach PostgreSQL, then (the lock
   * lost) {@code unfed} more the journal keeps on disk only.
   */
  private void tenure(Path folder, int fed, int unfed) throws Exception {
    Journal journal =
        Journal.open(pool, JournalSettings.defaults(folder), (e, p) -> {}, TestClock.startingAt(T));
    try {
      for (int i = 0; i < fed; i++) {
        pass(journal);
      }
      assertThat(journal.drain(Duration.ofSeconds(10))).isTrue();
      if (unfed > 0) {
        journal.stopFeeding(Duration.ZERO);
        for (int i = 0; i < unfed; i++) {
          pass(journal);
        }
        assertThat(journal.flush(Duration.ofSeconds(10))).isTrue();
      }
    } finally {
      journal.close();
    }
  }

  /** One pass: an observation and the audit entry of a firing. */
  private void pass(Journal journal) {
    int n = ++passes;
    Instant at = T.plusSeconds(n);
    journal.offer(
        new PassRecord(
            at,
            List.of(
                new Observation(
                    "plant.pump.flow", Value.of(n), Quality.LIVE, "test", Optional.empty(), at)),
            new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of())),
        List.of(
            new AuditEntry(
                "firing/pump/r1/" + n,
                "firing",
                "pump",
                1,
                Map.of(),
                List.of(),
                "automation",
                0,
                "",
                List.of(),
                "",
                "",
                at.toEpochMilli(),
                at,
                "pass " + n,
                Map.of())));
  }
}
