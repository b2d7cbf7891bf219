package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ClaimChange;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
  static final Instant T = Instant.parse("2026-11-02T05:00:00.137Z");

  TestDatabase db;
  io.vertx.sqlclient.Pool pool;
  Journal journal;
  final List<ControlEvent> alarms = new CopyOnWriteArrayList<>();

  Path spool;

  @BeforeEach
  void open(@TempDir Path spool) throws Exception {
    this.spool = spool;
    db = TestDatabase.create();
    pool = Store.pool(TestDatabase.VERTX, db.url());
    journal =
        Journal.open(
            pool,
            JournalSettings.defaults(spool),
            (e, p) -> alarms.add(e),
            TestClock.startingAt(T));
  }

  @AfterEach
  void close() {
    journal.close();
    pool.close();
    db.close();
  }

  static Observation flow(double v, Instant at) {
    return new Observation(
        "boiler.ch1.flow-temp",
        Value.of(v),
        Quality.LIVE,
        "mqtt:zigbee2mqtt/boiler-flow",
        Optional.of(at.minusMillis(40)),
        at);
  }

  @Test
  void aPass_landsInEveryTable_numberedInTheOrderItHappened() {
    Claim claim = new Claim("pump-run-on", "boiler.ch1.pump", Band.AUTOMATION, 0, Value.TRUE, T, 0);
    PassResult result =
        new PassResult(
            List.of(
                new Transition(
                    "boiler.ch1.flow-temp",
                    PointState.unknown(T),
                    new PointState(Value.of(42.5), Quality.LIVE, T),
                    true,
                    true)),
            List.of(
                new ClaimChange(
                    "pump-run-on",
                    "boiler.ch1.pump",
                    Band.AUTOMATION,
                    Optional.of(Value.TRUE),
                    T,
                    "condition true")),
            List.of(
                new Decision(
                    "boiler.ch1.pump",
                    Optional.of(claim),
                    Optional.of(Value.TRUE),
                    List.of(claim),
                    "sole")),
            List.of(
                new ActionFired(
                    "door-open-alert/0/1",
                    "door-open-alert",
                    new io.sentinel.rule.ActionSpec.Notify(
                        "ops",
                        "Door open",
                        Optional.empty(),
                        Optional.empty(),
                        Duration.ofMinutes(5),
                        new io.sentinel.point.SourceRef("test", 0)),
                    T)),
            List.of(
                new ControlEvent("warmup-left", "pump-run-on", "all inputs live since start", T)),
            List.of(new SelfPoint("rule.pump-run-on.suspended", Value.FALSE, T)));
    long last =
        journal.offer(new PassRecord(T, List.of(flow(42.5, T), flow(42.7, T)), result), List.of());
    assertThat(last).isEqualTo(6);
    assertThat(journal.drain(Duration.ofSeconds(10))).isTrue();
    // Fed as the writer kept it, just written: not read back from disk and decoded again.
    assertThat(journal.stats().fedFromDisk()).isZero();
    assertThat(journal.stats().fedFromMemory()).isEqualTo(journal.stats().records());
    assertThat(db.longs("SELECT seq FROM observations ORDER BY seq")).containsExactly(1L, 2L);
    assertThat(db.count("SELECT seq FROM claim_changes")).isEqualTo(3);
    assertThat(db.count("SELECT seq FROM decisions WHERE kind = 'assert' AND value = 'true'"))
        .isEqualTo(4);
    assertThat(db.count("SELECT seq FROM actions WHERE fields->>'channel' = 'ops'")).isEqualTo(5);
    assertThat(db.count("SELECT seq FROM control_events WHERE kind = 'warmup-left'")).isEqualTo(6);
    assertThat(
            db.count("SELECT count(*) FROM point_values WHERE value = '42.5' AND quality = 'live'"))
        .isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM action_cooldowns WHERE rule_id = 'door-open-alert' AND action_index = 0"))
        .isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM self_points WHERE value = 'false'")).isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM observations WHERE value_num = 42.7 AND observed_at IS NOT NULL"))
        .isEqualTo(1);
  }

  @Test
  void aCommand_andThePassThatSentIt_areWrittenOutAtOnce_notAtTheNextSync() throws Exception {
    journal.syncAtMostEvery(Duration.ofHours(1));
    long first = journal.offerEvent(new ControlEvent("warmup-left", "pump-run-on", "test", T));
    await().atMost(Duration.ofSeconds(5)).until(() -> journal.durableSeq() >= first);

    journal.offer(onePass(41.25), List.of()); // no command: waits for the sync, an hour away
    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
    assertThat(segmentsText()).doesNotContain("41.25");

    journal.offerCommand(
        "cmd-early-1", "boiler.ch1.pump", "set", Value.TRUE, "automation", "pump-run-on", T, "new");
    journal.offer(onePass(42.75), List.of());
    // In the files (the page cache), so a crash of the process no longer loses them.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> segmentsText().contains("cmd-early-1") && segmentsText().contains("42.75"));
    assertThat(segmentsText()).contains("41.25");
    assertThat(journal.durableSeq()).isEqualTo(first);
  }

  private static PassRecord onePass(double flow) {
    return new PassRecord(
        T,
        List.of(flow(flow, T)),
        new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of()));
  }

  /** Every file of the journal's folder as text, as another process would read it now. */
  private String segmentsText() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(spool)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    return all.toString();
  }

  @Test
  void manyPasses_areBatched_andKeepTheirOrder_acrossAReopen(@TempDir Path spool2)
      throws Exception {
    List<Long> offered = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      Instant at = T.plusMillis(i);
      offered.add(
          journal.offer(
              new PassRecord(
                  at,
                  List.of(flow(40 + i % 10, at)),
                  new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of())),
              List.of()));
    }
    assertThat(journal.drain(Duration.ofSeconds(20))).isTrue();
    // Offered faster than fed: what the feeder was behind on it read from disk, the rest it took
    // as the writer kept them; each record once.
    JournalStats fed = journal.stats();
    assertThat(fed.fedFromMemory()).isPositive();
    assertThat(fed.fedFromMemory() + fed.fedFromDisk()).isEqualTo(fed.records());
    journal.close();
    journal = reopen(spool2);
    long next =
        journal.offer(
            new PassRecord(
                T.plusSeconds(10),
                List.of(flow(50, T.plusSeconds(10))),
                new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of())),
            List.of());
    assertThat(next).isEqualTo(3001);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> db.count("SELECT count(*) FROM observations") == 3001);
    List<Long> seqs = db.longs("SELECT seq FROM observations ORDER BY received_at, seq");
    assertThat(seqs).isSorted().doesNotHaveDuplicates().hasSize(3001);
    assertThat(alarms).isEmpty();
  }

  @Test
  void partitions_areMadeAhead_andRetentionDropsWholeDays() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                db.count("SELECT count(*) FROM pg_class WHERE relname ~ '^observations_[0-9]{8}$'")
                    >= 4);
    db.execute("SELECT sentinel_observation_partitions('2026-01-01'::date, 3)");
    db.execute(
        "INSERT INTO observations VALUES (1, 'a.b.c', '1', 1, 'live', 's', NULL, '2026-01-02T10:00:00Z'),"
            + " (2, 'a.b.c', '1', 1, 'live', 's', NULL, '2025-06-01T10:00:00Z')");
    assertThat(db.count("SELECT count(*) FROM observations_20260102")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM observations_default")).isEqualTo(1);
    // A day made after its rows arrived takes them over from the default partition.
    db.execute("SELECT sentinel_observation_partitions('2025-06-01'::date, 1)");
    assertThat(db.count("SELECT count(*) FROM observations_20250601")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM observations_default")).isZero();
    assertThat(db.count("SELECT sentinel_drop_observations_before('2026-01-02'::date)"))
        .isEqualTo(2);
    assertThat(db.count("SELECT count(*) FROM observations")).isEqualTo(1);
  }

  /**
   * The feeder's mark ({@code fed}) is synced at most every second (FedFile): a power cut can lose
   * its latest value, and the next start then feeds records PostgreSQL already has. They are
   * no-ops: no row twice, none refused (a refused row would be set aside), the newest point value
   * kept, and numbering goes on after the last record.
   */
  @Test
  void recordsFedAgain_afterTheFedMarkLostItsLatestValue_changeNothingInPostgreSQL(
      @TempDir Path folder) throws Exception {
    journal.close();
    journal = reopen(folder);
    offerPasses(0, 100);
    assertThat(journal.drain(Duration.ofSeconds(20))).isTrue();
    String older = java.nio.file.Files.readString(folder.resolve(FedState.FILE));
    offerPasses(100, 200);
    assertThat(journal.drain(Duration.ofSeconds(20))).isTrue();
    journal.close();
    List<Long> seqsBefore = db.longs("SELECT seq FROM observations ORDER BY seq");
    assertThat(seqsBefore).hasSize(200);
    assertThat(java.nio.file.Files.readString(folder.resolve(FedState.FILE))).isNotEqualTo(older);
    java.nio.file.Files.writeString(folder.resolve(FedState.FILE), older); // the last sync's value

    journal = reopen(folder);
    assertThat(journal.drain(Duration.ofSeconds(20))).isTrue();
    assertThat(journal.stats().written()).isGreaterThanOrEqualTo(100 * 3); // fed again
    assertThat(db.longs("SELECT seq FROM observations ORDER BY seq")).isEqualTo(seqsBefore);
    assertThat(db.count("SELECT count(*) FROM self_points")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM point_values")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM point_values WHERE value = '49.9'")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM dead_letters")).isZero();
    assertThat(journal.stats().deadLetters()).isZero();
    long next = offerPasses(200, 201);
    assertThat(next).isGreaterThan(seqsBefore.get(seqsBefore.size() - 1));
    assertThat(journal.drain(Duration.ofSeconds(20))).isTrue();
    assertThat(db.count("SELECT count(*) FROM observations")).isEqualTo(201);
    assertThat(alarms).isEmpty();
  }

  private Journal reopen(Path folder) throws java.io.IOException {
    return Journal.open(
        pool, JournalSettings.defaults(folder), (e, p) -> alarms.add(e), TestClock.startingAt(T));
  }

  /**
   * Passes {@code from} to {@code to} (exclusive): an observation, its transition, a self point.
   */
  private long offerPasses(int from, int to) {
    long last = -1;
    for (int i = from; i < to; i++) {
      Instant at = T.plusMillis(i);
      double v = i == 199 ? 49.9 : 40 + i % 5;
      PassResult result =
          new PassResult(
              List.of(
                  new Transition(
                      "boiler.ch1.flow-temp",
                      PointState.unknown(at),
                      new PointState(Value.of(v), Quality.LIVE, at),
                      true,
                      true)),
              List.of(),
              List.of(),
              List.of(),
              List.of(),
              List.of(new SelfPoint("journal.test", Value.of((double) i), at)));
      last = journal.offer(new PassRecord(at, List.of(flow(v, at)), result), List.of());
    }
    return last;
  }
}
