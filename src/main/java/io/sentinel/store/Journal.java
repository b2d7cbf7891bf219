package io.sentinel.store;

import io.sentinel.audit.AuditChain;
import io.sentinel.audit.AuditEntry;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Value;
import io.sentinel.store.wal.GroupCommit;
import io.sentinel.store.wal.SegmentLog;
import io.sentinel.store.wal.TornTail;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
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
   * Where the journal's own alarms go (the runtime publishes them as it publishes the engine's).
   */
  @FunctionalInterface
  public interface Alarms {
    void raised(ControlEvent event, SelfPoint selfPoint);
  }

  private final BlockingQueue<JournalItem> queue;
  private final JournalSettings settings;
  private final SegmentLog log;
  private final GroupCommit<JournalItem> commit;

  /** A command was offered since the last pass: that pass is written out at once too. */
  private boolean commandSent;

  private final Feeder feeder;
  private final Recovered recovered;
  private final AtomicLong nextSeq;
  private volatile long durableSeq;
  private volatile Runnable durableMoved = () -> {};
  private volatile long lastOffered;
  private final JournalWatch watch;
  private final JournalSignals signals;
  private volatile boolean full;
  private volatile boolean feedStopped;
  private final AtomicLong lost = new AtomicLong();
  private long offered;

  private Journal(
      Pool pool,
      JournalSettings settings,
      SegmentLog log,
      Recovered recovered,
      FedState fed,
      Optional<Feeder.Migrator> migrator,
      Alarms alarms,
      InstantSource clock) {
    this.settings = settings;
    this.log = log;
    this.recovered = recovered;
    this.watch = new JournalWatch(settings.stuckAfter(), System::nanoTime);
    this.signals = new JournalSignals(this, alarms, watch, clock);
    AuditChain chain = new AuditChain(recovered.auditSeq(), recovered.auditHead());
    RecentRecords recent = new RecentRecords();
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.nextSeq = new AtomicLong(recovered.lastSeq() + 1);
    this.durableSeq = recovered.lastSeq();
    this.lastOffered = recovered.lastSeq();
    this.commit =
        new GroupCommit<>(
            log,
            queue,
            JournalItem.encoder(chain, recent),
            settings.maxBytes(),
            4096,
            signals,
            "sentinel-journal");
    this.feeder =
        new Feeder(log, recent, commit::durableEnd, pool, settings, fed, migrator, signals, clock);
  }

  /** Opens the journal on a migrated database (tests, tools). */
  public static Journal open(
      Pool pool, JournalSettings settings, Alarms alarms, InstantSource clock) throws IOException {
    return open(pool, settings, alarms, clock, Optional.empty());
  }

  /**
   * Opens the journal: recovers its folder (every complete record kept, a torn tail cut and named:
   * {@link Recovered#open}), learns where the log ends (the folder, else PostgreSQL, else the
   * clock) and starts its threads. PostgreSQL need not answer: {@code migrator} (empty: the schema
   * is migrated) runs in the feeder before its first batch, retried until it works.
   */
  static Journal open(
      Pool pool,
      JournalSettings settings,
      Alarms alarms,
      InstantSource clock,
      Optional<Feeder.Migrator> migrator)
      throws IOException {
    JournalSettings s = settings.withSegmentsFitting();
    SegmentLog log = SegmentLog.open(s.dir(), s.segmentBytes());
    Recovered.Opened opened = Recovered.open(log, s.dir(), pool, migrator, clock);
    Recovered r = opened.recovered();
    Journal j = new Journal(pool, s, log, r, opened.fed(), migrator, alarms, clock);
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
    JournalItem item = new JournalItem.OfPass(first, seqs, pass, List.copyOf(audit));
    long last = enqueue(item, seqs);
    if (commandSent) {
      // The pass that sent it: with it in the log, a restart after a crash matches its messages
      // when the broker delivers them again, instead of deciding them (and sending) twice.
      commandSent = false;
      commit.hurry();
    }
    return last;
  }

  /** A control event that did not come from the engine (the gateway, the command plane). */
  public synchronized long offerEvent(ControlEvent e) {
    return offerRows(seq -> List.of(Rows.event(seq, e)));
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
    return offerRows(
        seq -> List.of(Rows.derivedSnapshot(seq, at, revision, snapshot, latchedRules, overrides)));
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
    long seq =
        offerRows(
            s -> Rows.command(s, commandId, pointId, kind, value, band, ruleId, issuedAt, state));
    // The command goes out now, while its row would wait for the next sync (up to sync-every):
    // written at once, it survives a crash of the process (docs/persistence.md).
    commandSent = true;
    commit.hurry();
    return seq;
  }

  /** A later delivery state of a command (sent, delivered, failed, undeliverable ...). */
  public synchronized long offerCommandState(
      String commandId, String state, Instant at, String detail) {
    return offerRows(
        seq ->
            List.of(Rows.row(Table.COMMAND_STATES, seq, commandId, state, Rows.text(at), detail)));
  }

  /**
   * Every MQTT message taken in passes up to {@code through} has been acknowledged to the broker
   * (docs/live.md, "Messages delivered again"; {@link RedeliveryTail}).
   */
  public synchronized long offerAcknowledged(long through, Instant at) {
    return offerRows(seq -> List.of(RedeliveryTail.mark(seq, through, at)));
  }

  /**
   * The MQTT client disconnected cleanly after its last PUBACK: no message logged before this
   * record is delivered again ({@link RedeliveryTail}).
   */
  public synchronized long offerStopped(Instant at) {
    return offerRows(seq -> List.of(RedeliveryTail.stopped(seq, at)));
  }

  /** Rows numbered with the next sequence number, in one record (under the journal's monitor). */
  private long offerRows(LongFunction<List<Row>> rows) {
    long seq = nextSeq.get();
    return enqueue(new JournalItem.OfRows(seq, rows.apply(seq)), 1);
  }

  private long enqueue(JournalItem item, int seqs) {
    offered++;
    if (!queue.offer(item)) {
      long n = lost.addAndGet(Math.max(seqs, 1));
      signals.overflow("the journal's queue is full (" + settings.queueCapacity() + " waiting)", n);
      return -1;
    }
    nextSeq.addAndGet(seqs);
    lastOffered = item.lastSeq();
    settleIfRoom();
    return item.lastSeq();
  }

  /** After an overflow, once the queue is half empty: the loss goes into the log, counted. */
  private synchronized void settleIfRoom() {
    if (signals.overflowing() && queue.remainingCapacity() > settings.queueCapacity() / 2) {
      signals.settle(lost.get());
    }
  }

  /** The writer synced up to {@code mark} (on its thread; {@link JournalSignals}). */
  void durable(long mark) {
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

  void full(boolean isFull) {
    full = isFull;
  }

  Feeder feeder() {
    return feeder;
  }

  Path dir() {
    return log.dir();
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

  /** At most one sync every {@code every}: {@link GroupCommit#syncAtMostEvery}. */
  public void syncAtMostEvery(Duration every) {
    commit.syncAtMostEvery(every);
  }

  public JournalStats stats() {
    GroupCommit.Stats c = commit.stats();
    return new JournalStats(
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
        feeder.lag().toNanos() / 1e9,
        feeder.fedFromMemory(),
        feeder.fedFromDisk());
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
}
