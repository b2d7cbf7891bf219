package io.sentinel.store;

import io.sentinel.audit.AuditChain;
import io.sentinel.audit.AuditEntry;
import io.sentinel.door.Door;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Value;
import io.sentinel.store.wal.GroupCommit;
import io.sentinel.store.wal.Position;
import io.sentinel.store.wal.SegmentLog;
import io.sentinel.store.wal.TornTail;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jboss.logging.Logger;

/**
 * The log's way in, and its durable point: a local write-ahead journal (docs/persistence.md, ADR
 * 0008). {@link #offer} never blocks: it numbers what it is given and puts it on a bounded queue.
 * The journal's writer turns each offer into one record (its rows, the audit entries sealed into
 * the chain) in the segment files on the gateway's own disk; one {@code fdatasync} per batch makes
 * them durable ({@link #durableSeq()}, what an MQTT acknowledgement waits for). A feeder writes the
 * synced records to PostgreSQL asynchronously, in order, in large batches, and deletes the segments
 * PostgreSQL has; while PostgreSQL is away the journal holds them (degraded, retried with backoff).
 * A row PostgreSQL refuses is set aside in {@code dead_letters} and the rest flows on.
 *
 * <p>Never a silent drop: at the disk bound the writer waits (so acknowledgements stop and the
 * broker holds the backlog) with the event {@code journal-full} and the self point {@code
 * journal.full}; only if the queue in memory fills too are records counted lost ({@code
 * journal-overflow}, then {@code journal-lost} with the count).
 */
public final class Journal implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Journal.class);

  /**
   * @param queueCapacity offers waiting for the writer
   * @param batchRows rows per PostgreSQL transaction at most
   * @param dir the journal's folder (never inside a site folder)
   * @param maxBytes the journal's bound on disk
   * @param segmentBytes one segment file's size (kept at most a quarter of the bound)
   * @param writeTimeout a PostgreSQL batch not committed within this is retried
   * @param retryEvery the first wait before PostgreSQL is tried again; doubled up to {@code
   *     retryMax}
   * @param retention observation partitions older than this are dropped
   * @param stuckAfter the journal unable to move this long is a stall: liveness goes down ({@link
   *     #stall()})
   */
  public record Settings(
      int queueCapacity,
      int batchRows,
      Path dir,
      long maxBytes,
      long segmentBytes,
      Duration writeTimeout,
      Duration retryEvery,
      Duration retryMax,
      Duration retention,
      Duration stuckAfter) {
    public static Settings defaults(Path dir) {
      return new Settings(
          20_000,
          5_000,
          dir,
          1024L << 20,
          64L << 20,
          Duration.ofSeconds(5),
          Duration.ofMillis(500),
          Duration.ofSeconds(10),
          Duration.ofDays(30),
          Duration.ofSeconds(60));
    }

    public Settings withBound(long maxBytes, long segmentBytes) {
      return new Settings(
          queueCapacity,
          batchRows,
          dir,
          maxBytes,
          segmentBytes,
          writeTimeout,
          retryEvery,
          retryMax,
          retention,
          stuckAfter);
    }

    public Settings withQueue(int capacity) {
      return new Settings(
          capacity,
          batchRows,
          dir,
          maxBytes,
          segmentBytes,
          writeTimeout,
          retryEvery,
          retryMax,
          retention,
          stuckAfter);
    }

    public Settings withRetry(Duration every, Duration max) {
      return new Settings(
          queueCapacity,
          batchRows,
          dir,
          maxBytes,
          segmentBytes,
          writeTimeout,
          every,
          max,
          retention,
          stuckAfter);
    }
  }

  /**
   * Where the journal's own alarms go (the runtime publishes them as it publishes the engine's).
   */
  @FunctionalInterface
  public interface Alarms {
    void raised(ControlEvent event, SelfPoint selfPoint);
  }

  /**
   * Counters, for metrics and tests: offers taken, rows PostgreSQL committed, records counted lost,
   * the durable mark, whether PostgreSQL is behind, the journal's bytes and segments on disk, its
   * syncs (count, total and longest seconds), rows set aside, PostgreSQL's batches (count, total
   * seconds) and how long it has been behind.
   */
  public record Stats(
      long offered,
      long written,
      long lost,
      long durableSeq,
      boolean degraded,
      long bytes,
      int segments,
      long syncs,
      double syncSeconds,
      double maxSyncSeconds,
      long records,
      long deadLetters,
      long feedBatches,
      double feedSeconds,
      double feedLagSeconds) {}

  sealed interface Item {
    long lastSeq();
  }

  private record PassItem(long firstSeq, int seqs, PassRecord pass, List<AuditEntry> audit)
      implements Item {
    public long lastSeq() {
      return firstSeq + seqs - 1;
    }
  }

  private record RowsItem(List<Row> rows, List<AuditEntry> audit, long lastSeq) implements Item {}

  private final BlockingQueue<Item> queue;
  private final Settings settings;
  private final SegmentLog log;
  private final GroupCommit<Item> commit;
  private final Feeder feeder;
  private final Alarms alarms;
  private final InstantSource clock;
  private final AuditChain chain;
  private final RowCodec codec = new RowCodec();
  private final Recovered recovered;
  private final AtomicLong nextSeq;
  private volatile long durableSeq;
  private volatile Runnable durableMoved = () -> {};
  private volatile long lastOffered;
  private final JournalWatch watch;
  private volatile boolean full;
  private volatile boolean feedStopped;
  private final AtomicLong lost = new AtomicLong();
  private long lostReported;
  private long offered;
  private boolean overflowing;

  private Journal(
      Pool pool,
      Settings settings,
      SegmentLog log,
      Recovered recovered,
      FedState fed,
      Optional<Feeder.Migrator> migrator,
      Alarms alarms,
      InstantSource clock) {
    this.settings = settings;
    this.log = log;
    this.recovered = recovered;
    this.alarms = alarms;
    this.clock = clock;
    this.watch = new JournalWatch(settings.stuckAfter(), System::nanoTime);
    this.chain = new AuditChain(recovered.auditSeq(), recovered.auditHead());
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.nextSeq = new AtomicLong(recovered.lastSeq() + 1);
    this.durableSeq = recovered.lastSeq();
    this.lastOffered = recovered.lastSeq();
    this.commit =
        new GroupCommit<>(
            log,
            queue,
            new GroupCommit.Encoder<>() {
              @Override
              public GroupCommit.Encoded encode(Item item) {
                List<Row> rows = rowsOf(item);
                if (rows.isEmpty()) {
                  return GroupCommit.Encoded.NONE;
                }
                return new GroupCommit.Encoded(codec.encode(rows), codec.length());
              }

              @Override
              public long mark(Item item) {
                return item.lastSeq();
              }
            },
            settings.maxBytes(),
            4096,
            new DiskListener(),
            "sentinel-journal");
    this.feeder =
        new Feeder(log, commit::durableEnd, pool, settings, fed, migrator, new FeedEvents(), clock);
  }

  /** Opens the journal on a migrated database (tests, tools). */
  public static Journal open(Pool pool, Settings settings, Alarms alarms, InstantSource clock)
      throws IOException {
    return open(pool, settings, alarms, clock, Optional.empty());
  }

  /**
   * Opens the journal: recovers its folder (every complete record kept, a torn tail cut and named),
   * learns where the log ends (the folder, else PostgreSQL, else the clock) and starts its threads.
   * PostgreSQL need not answer: {@code migrator} (empty: the schema is migrated) runs in the feeder
   * before its first batch, retried until it works.
   */
  static Journal open(
      Pool pool,
      Settings settings,
      Alarms alarms,
      InstantSource clock,
      Optional<Feeder.Migrator> migrator)
      throws IOException {
    Settings s =
        settings.withBound(
            settings.maxBytes(),
            Math.max(4096, Math.min(settings.segmentBytes(), settings.maxBytes() / 4)));
    SegmentLog log = SegmentLog.open(s.dir(), s.segmentBytes());
    for (TornTail t : log.tornTails()) {
      LOG.warnf(
          "SEN-DB-061 the journal was cut at %s: every complete record before it is kept (a record"
              + " cut by a crash was never synced, so never acknowledged)",
          t);
    }
    Optional<FedState> fed = FedState.read(s.dir());
    Position from = fed.map(FedState::position).orElse(log.first());
    if (from.before(log.first())) {
      from = log.first();
    }
    Recovered r = Recovered.scan(log, from, fed);
    FedState start = fed.orElse(FedState.none(from));
    if (fed.isEmpty() && r.records() == 0) {
      r = r.fromDatabase(pool, migrator.orElse(() -> {}), clock);
      start = new FedState(from, r.lastSeq(), r.auditSeq(), r.auditHead());
    }
    if (r.records() > 0) {
      LOG.infof(
          "SEN-DB-062 the journal in %s holds %d records PostgreSQL has not taken yet (up to seq"
              + " %d): they go first",
          s.dir(), r.records(), r.lastSeq());
    }
    Journal j = new Journal(pool, s, log, r, start, migrator, alarms, clock);
    j.commit.start();
    j.feeder.start();
    return j;
  }

  /**
   * Takes a pass (observations, results, the audit entries made of it) without waiting. Returns the
   * last sequence number given to it, or -1 when the queue is full (then counted and alarmed).
   */
  public synchronized long offer(PassRecord pass, List<AuditEntry> audit) {
    int seqs = Rows.seqsOf(pass);
    if (seqs == 0 && audit.isEmpty() && pass.result().selfPoints().isEmpty()) {
      return lastOffered;
    }
    long first = nextSeq.get();
    PassItem item = new PassItem(first, seqs, pass, List.copyOf(audit));
    return enqueue(item, seqs);
  }

  /** A control event that did not come from the engine (the gateway, the command plane). */
  public synchronized long offerEvent(ControlEvent e) {
    long seq = nextSeq.get();
    return enqueue(new RowsItem(List.of(Rows.event(seq, e)), List.of(), seq), 1);
  }

  /**
   * A snapshot of the derived points' state, of the DSL's latches ({@code Engine.latchedRules()})
   * and of the operator overrides in force ({@code Engine.overrides()}), for the next restart.
   */
  public synchronized long offerDerivedSnapshot(
      Instant at,
      long revision,
      String snapshot,
      java.util.Set<String> latchedRules,
      java.util.Collection<io.sentinel.engine.OperatorOverride> overrides) {
    long seq = nextSeq.get();
    return enqueue(
        new RowsItem(
            List.of(Rows.derivedSnapshot(seq, at, revision, snapshot, latchedRules, overrides)),
            List.of(),
            seq),
        1);
  }

  /** A command the command plane issued, and its first state. */
  public synchronized long offerCommand(
      String commandId,
      String pointId,
      String kind,
      Value value,
      String band,
      String ruleId,
      Instant issuedAt,
      String state) {
    long seq = nextSeq.get();
    io.sentinel.store.Row row =
        new io.sentinel.store.Row(
            Table.COMMANDS,
            seq,
            java.util.Arrays.asList(
                commandId,
                Long.toString(seq),
                pointId,
                kind,
                Rows.json(value),
                band,
                ruleId,
                Rows.text(issuedAt),
                state,
                Rows.text(issuedAt)));
    io.sentinel.store.Row history =
        Rows.row(Table.COMMAND_STATES, seq, commandId, state, Rows.text(issuedAt), "");
    return enqueue(new RowsItem(List.of(row, history), List.of(), seq), 1);
  }

  /** A later delivery state of a command (sent, delivered, failed, undeliverable ...). */
  public synchronized long offerCommandState(
      String commandId, String state, Instant at, String detail) {
    long seq = nextSeq.get();
    io.sentinel.store.Row history =
        Rows.row(Table.COMMAND_STATES, seq, commandId, state, Rows.text(at), detail);
    return enqueue(new RowsItem(List.of(history), List.of(), seq), 1);
  }

  /**
   * Every MQTT message taken in passes up to {@code through} has been acknowledged to the broker
   * (docs/live.md, "Messages delivered again after a crash"; {@link RedeliveryTail}).
   */
  public synchronized long offerAcknowledged(long through, Instant at) {
    long seq = nextSeq.get();
    return enqueue(new RowsItem(List.of(RedeliveryTail.mark(seq, through, at)), List.of(), seq), 1);
  }

  private long enqueue(Item item, int seqs) {
    offered++;
    if (!queue.offer(item)) {
      long n = lost.addAndGet(Math.max(seqs, 1));
      overflow("the journal's queue is full (" + settings.queueCapacity() + " waiting)", n);
      return -1;
    }
    nextSeq.addAndGet(seqs);
    lastOffered = item.lastSeq();
    settleIfRoom();
    return item.lastSeq();
  }

  /** After an overflow, once the queue is half empty: the loss goes into the log, counted. */
  private synchronized void settleIfRoom() {
    if (overflowing && queue.remainingCapacity() > settings.queueCapacity() / 2) {
      settle();
    }
  }

  /** Everything up to this sequence number is synced to the journal on disk. */
  public long durableSeq() {
    return durableSeq;
  }

  /**
   * {@code moved} runs on the journal's thread each time {@link #durableSeq()} has moved; it must
   * return at once (the gateway hands it to the engine's context to acknowledge MQTT messages).
   */
  public void onDurable(Runnable moved) {
    this.durableMoved = moved;
  }

  /** Offers waiting for the writer (a load generator keeps below the capacity with it). */
  public int backlog() {
    return queue.size();
  }

  /** Whether PostgreSQL is behind: away, or not yet reached since start. */
  public boolean degraded() {
    return feeder.degraded();
  }

  /** Why PostgreSQL last failed to take a batch (empty once it takes them). */
  public String feedError() {
    String e = feeder.lastError();
    return e.isEmpty() && feeder.degraded() ? "not reached since the start" : e;
  }

  /**
   * The journal cannot move, for {@code stuck-after} already: its disk fails, it is at its bound
   * (so nothing is acknowledged and no new input comes in), or PostgreSQL answers and takes nothing
   * ({@link JournalWatch}). PostgreSQL merely away, with room, is {@link #degraded()}: the journal
   * holds.
   */
  public Optional<JournalStall> stall() {
    return watch.stall(
        feeder.refusingSince(),
        feeder.lastError(),
        log.bytes() + " of " + settings.maxBytes() + " bytes on disk");
  }

  public boolean stuck() {
    return stall().isPresent();
  }

  /** At its bound on disk: the writer waits and acknowledgements stop. */
  public boolean full() {
    return full;
  }

  /** The folder's segments and what recovery cut. */
  public List<TornTail> tornTails() {
    return log.tornTails();
  }

  /**
   * The latest of the state rows (point values, cooldowns, snapshot) in the records PostgreSQL had
   * not taken at open: a restart restores from PostgreSQL and then from these.
   */
  List<Row> unfedState() {
    return recovered.state();
  }

  /**
   * The MQTT samples after the last acknowledgement mark in the records PostgreSQL had not taken.
   */
  List<Row> unfedTail() {
    return recovered.tail();
  }

  public Stats stats() {
    GroupCommit.Stats c = commit.stats();
    return new Stats(
        offered,
        feeder.written(),
        lost.get(),
        durableSeq,
        feeder.degraded(),
        log.bytes(),
        log.segmentCount(),
        c.syncs(),
        c.syncNanos() / 1e9,
        c.maxSyncNanos() / 1e9,
        c.records(),
        feeder.deadLettered(),
        feeder.batches(),
        feeder.batchNanos() / 1e9,
        feeder.lag().toNanos() / 1e9);
  }

  /** Waits until everything offered so far is synced to the journal; false on timeout. */
  public boolean flush(Duration timeout) {
    long target = lastOffered;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (durableSeq < target && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
    return durableSeq >= target;
  }

  /** Waits until PostgreSQL has everything offered so far too; false on timeout. */
  public boolean drain(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!flush(timeout)) {
      return false;
    }
    while (!(feeder.caughtUp() && !feeder.degraded() && durableSeq >= lastOffered)
        && System.nanoTime() < deadline) {
      feeder.nudge();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return feeder.caughtUp() && !feeder.degraded() && durableSeq >= lastOffered;
  }

  /**
   * Stops writing to PostgreSQL now (a batch under way completes): this core lost the core lock and
   * another one writes the log from here on (docs/standby.md). The journal still keeps on disk what
   * it is given, for this folder's next tenure to find (JournalHandover).
   */
  public void stopFeeding(Duration lastDrain) {
    drain(lastDrain);
    feedStopped = true;
    feeder.close(settings.writeTimeout());
  }

  /**
   * Syncs what is queued, gives PostgreSQL a moment to take it (when it answers), and stops. What
   * PostgreSQL has not taken stays in the folder for the next start.
   */
  @Override
  public void close() {
    flush(settings.writeTimeout());
    commit.close();
    if (!feedStopped) {
      if (!feeder.degraded()) {
        drain(settings.writeTimeout());
      }
      feeder.close(settings.writeTimeout().multipliedBy(2));
    }
    try {
      log.close();
    } catch (IOException e) {
      LOG.errorf("SEN-DB-001 the journal did not close cleanly: %s", e.getMessage());
    }
  }

  /** On the writer's thread: an offer's rows, the audit chain sealed in the order they are kept. */
  private List<Row> rowsOf(Item item) {
    List<Row> rows;
    List<AuditEntry> audit;
    if (item instanceof PassItem p) {
      rows = Rows.of(p.pass(), p.firstSeq());
      audit = p.audit();
    } else {
      RowsItem r = (RowsItem) item;
      rows = r.rows();
      audit = r.audit();
    }
    if (audit.isEmpty()) {
      return rows;
    }
    List<Row> all = new ArrayList<>(rows);
    audit.forEach(e -> all.add(Rows.audit(chain.append(e))));
    return all;
  }

  private final class DiskListener implements GroupCommit.Listener {
    private long lastFailureLog;

    @Override
    public void durable(long mark, Position end) {
      watch.synced();
      settleIfRoom();
      if (mark > durableSeq) {
        durableSeq = mark;
        try {
          durableMoved.run();
        } catch (RuntimeException e) {
          // The mark itself has moved; whoever waits for it also checks it after each pass.
          LOG.debugf("durable mark listener failed: %s", e.getMessage());
        }
      }
      feeder.synced();
    }

    @Override
    public void full(boolean isFull, long bytes, long maxBytes) {
      full = isFull;
      watch.full(isFull);
      Instant now = clock.instant();
      String message =
          isFull
              ? "the journal is at its bound ("
                  + bytes
                  + " of "
                  + maxBytes
                  + " bytes on disk, PostgreSQL behind: "
                  + feeder.lastError()
                  + "): passes wait in memory and MQTT messages are not acknowledged, so the"
                  + " broker holds the backlog"
              : "the journal has room again (" + bytes + " of " + maxBytes + " bytes)";
      if (isFull) {
        LOG.errorf("SEN-DB-064 %s", message);
      } else {
        LOG.infof("SEN-DB-065 %s", message);
      }
      ControlEvent e =
          new ControlEvent(isFull ? "journal-full" : "journal-room", "journal", message, now);
      alarms.raised(e, new SelfPoint("journal.full", Value.of(isFull), now));
      offerEvent(e);
    }

    @Override
    public void failed(IOException e) {
      watch.diskFailed(e);
      long now = System.nanoTime();
      if (now - lastFailureLog > TimeUnit.SECONDS.toNanos(10)) {
        lastFailureLog = now;
        LOG.errorf(
            "SEN-DB-066 the journal cannot write to %s (%s): retried every second; nothing is"
                + " acknowledged meanwhile",
            log.dir(), e.getMessage());
      }
    }
  }

  private final class FeedEvents implements Feeder.Events {
    private long lastDeadLetterLog;

    @Override
    public void tick() {
      Optional<JournalStall> s = stall();
      watch
          .changed(s)
          .ifPresent(
              message -> {
                boolean stuck = s.isPresent();
                if (stuck) {
                  LOG.errorf("SEN-107 %s", message);
                } else {
                  LOG.infof("SEN-108 %s", message);
                }
                Instant now = clock.instant();
                ControlEvent e =
                    new ControlEvent(
                        stuck ? "journal-stuck" : "journal-moving", "journal", message, now);
                alarms.raised(e, new SelfPoint("journal.stuck", Value.of(stuck), now));
                offerEvent(e);
              });
    }

    @Override
    public void degraded(String why) {
      Instant now = clock.instant();
      String message =
          "PostgreSQL does not take the journal's batches ("
              + Door.escaped(why)
              + "): the local journal holds them and PostgreSQL catches up when it answers";
      ControlEvent e = new ControlEvent("journal-degraded", "journal", message, now);
      alarms.raised(e, new SelfPoint("journal.degraded", Value.TRUE, now));
      offerEvent(e);
    }

    @Override
    public void recovered() {
      Instant now = clock.instant();
      ControlEvent e =
          new ControlEvent(
              "journal-recovered",
              "journal",
              "PostgreSQL takes the journal's batches again: it catches up in order",
              now);
      alarms.raised(e, new SelfPoint("journal.degraded", Value.FALSE, now));
      offerEvent(e);
    }

    @Override
    public void deadLettered(Row row, String reason) {
      Instant now = clock.instant();
      String message =
          "PostgreSQL refused a "
              + row.table().name
              + " row (seq "
              + row.seq()
              + "): "
              + Door.escaped(reason)
              + "; set aside in dead_letters, the rest flows on";
      long t = System.nanoTime();
      if (t - lastDeadLetterLog > TimeUnit.SECONDS.toNanos(10)) {
        lastDeadLetterLog = t;
        LOG.warnf("SEN-DB-067 %s (counted in sentinel_journal_dead_letters_total)", message);
      }
      ControlEvent e = new ControlEvent("journal-dead-letter", "journal", message, now);
      alarms.raised(
          e, new SelfPoint("journal.dead_letters", Value.of((double) feeder.deadLettered()), now));
      offerEvent(e);
    }
  }

  private void overflow(String why, long lostSoFar) {
    if (overflowing) {
      return;
    }
    overflowing = true;
    Instant now = clock.instant();
    String message = why + ": records are being lost (" + lostSoFar + " so far)";
    LOG.errorf("SEN-DB-032 %s", message);
    alarms.raised(
        new ControlEvent("journal-overflow", "journal", message, now),
        new SelfPoint("journal.overflow", Value.TRUE, now));
  }

  /** Room again: the loss goes into the log itself, with its count. */
  private void settle() {
    overflowing = false;
    long n = lost.get() - lostReported;
    lostReported = lost.get();
    Instant now = clock.instant();
    String message = n + " journal records were lost while the journal was full";
    LOG.warnf("SEN-DB-033 %s", message);
    ControlEvent e = new ControlEvent("journal-lost", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.overflow", Value.FALSE, now));
    offerEvent(e);
  }
}
