package io.sentinel.store;

import io.sentinel.audit.AuditChain;
import io.sentinel.audit.AuditEntry;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Value;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The log's way in. {@link #offer} never blocks: it numbers what it is given and puts it on a
 * bounded queue. The journal's own thread batches the queue into PostgreSQL (one transaction, one
 * statement per table); when PostgreSQL fails or is slow, rows go to the on-disk {@link Spool}, in
 * order, and from there to PostgreSQL once it answers again, before anything newer. When the queue
 * or the spool is full the journal says so loudly (a control event and the self point {@code
 * journal.overflow}, through {@link Alarms}, and a {@code journal-lost} event in the log once there
 * is room) and counts what it could not keep; it never drops anything quietly.
 */
public final class Journal implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Journal.class);

  /**
   * @param queueCapacity passes (and other offers) waiting for the writer
   * @param batchRows rows per transaction at most
   * @param spoolMaxBytes the spool's bound on disk
   * @param writeTimeout a batch PostgreSQL has not committed within this goes to the spool
   * @param retryEvery how often a failed PostgreSQL is tried again
   * @param retention observation partitions older than this are dropped
   */
  public record Settings(
      int queueCapacity,
      int batchRows,
      Path spoolDir,
      long spoolMaxBytes,
      long segmentBytes,
      Duration writeTimeout,
      Duration retryEvery,
      Duration retention) {
    public static Settings defaults(Path spoolDir) {
      return new Settings(
          20_000,
          5_000,
          spoolDir,
          256L << 20,
          16L << 20,
          Duration.ofSeconds(5),
          Duration.ofSeconds(1),
          Duration.ofDays(30));
    }

    public Settings withSpool(long maxBytes, long segmentBytes) {
      return new Settings(
          queueCapacity,
          batchRows,
          spoolDir,
          maxBytes,
          segmentBytes,
          writeTimeout,
          retryEvery,
          retention);
    }

    public Settings withQueue(int capacity) {
      return new Settings(
          capacity,
          batchRows,
          spoolDir,
          spoolMaxBytes,
          segmentBytes,
          writeTimeout,
          retryEvery,
          retention);
    }
  }

  /**
   * Where the journal's own alarms go (the runtime publishes them as it publishes the engine's).
   */
  @FunctionalInterface
  public interface Alarms {
    void raised(ControlEvent event, SelfPoint selfPoint);
  }

  /** Counters, for metrics and tests. */
  public record Stats(
      long offered,
      long written,
      long spooled,
      long lost,
      long durableSeq,
      boolean degraded,
      long spoolBytes) {}

  private sealed interface Item {
    long lastSeq();
  }

  private record PassItem(long firstSeq, int seqs, PassRecord pass, List<AuditEntry> audit)
      implements Item {
    public long lastSeq() {
      return firstSeq + seqs - 1;
    }
  }

  private record RowsItem(List<io.sentinel.store.Row> rows, List<AuditEntry> audit, long lastSeq)
      implements Item {}

  private final BlockingQueue<Item> queue;
  private final Settings settings;
  private final RowWriter writer;
  private final Pool pool;
  private final Spool spool;
  private final Alarms alarms;
  private final InstantSource clock;
  private final AuditChain chain;
  private final Thread thread;
  private final AtomicLong nextSeq;
  private volatile long durableSeq;
  private volatile Runnable durableMoved = () -> {};

  /** Offers handled either way: kept (durable) or counted lost; what flush and drain wait for. */
  private volatile long settledSeq;

  private volatile long lastOffered;
  private volatile boolean running = true;
  private volatile boolean degraded;
  private volatile long written;
  private volatile long spooled;
  private final AtomicLong lost = new AtomicLong();
  private long lostReported;
  private long offered;
  private boolean overflowing;
  private Instant nextAttempt = Instant.EPOCH;
  private LocalDate maintainedFor;

  private Journal(
      Pool pool,
      Settings settings,
      Spool spool,
      Alarms alarms,
      InstantSource clock,
      long lastSeq,
      AuditChain chain) {
    this.pool = pool;
    this.settings = settings;
    this.writer = new RowWriter(pool, settings.writeTimeout());
    this.spool = spool;
    this.alarms = alarms;
    this.clock = clock;
    this.chain = chain;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.nextSeq = new AtomicLong(lastSeq + 1);
    this.durableSeq = lastSeq;
    this.settledSeq = lastSeq;
    this.lastOffered = lastSeq;
    this.degraded = !spool.isEmpty();
    this.thread = new Thread(this::run, "sentinel-journal");
    thread.setDaemon(true);
  }

  /**
   * Opens the journal on a migrated database: learns the last sequence number and the audit chain's
   * head (from the database, and from rows still in the spool), then starts its thread. If
   * PostgreSQL does not answer, the journal opens anyway from what the spool knows and writes
   * there.
   */
  public static Journal open(Pool pool, Settings settings, Alarms alarms, InstantSource clock)
      throws IOException {
    Spool spool = new Spool(settings.spoolDir(), settings.spoolMaxBytes(), settings.segmentBytes());
    long lastSeq = 0;
    long auditSeq = 0;
    String auditHead = io.sentinel.audit.AuditRecord.GENESIS;
    RowWriter probe = new RowWriter(pool, settings.writeTimeout());
    try {
      Row r =
          probe
              .await(
                  pool.query(
                          "SELECT greatest((SELECT max(seq) FROM observations),"
                              + " (SELECT max(seq) FROM claim_changes), (SELECT max(seq) FROM decisions),"
                              + " (SELECT max(seq) FROM actions), (SELECT max(seq) FROM firings),"
                              + " (SELECT max(seq) FROM control_events), (SELECT max(seq) FROM commands),"
                              + " (SELECT max(seq) FROM command_states),"
                              + " (SELECT max(seq) FROM derived_snapshots)) AS last,"
                              + " (SELECT max(seq) FROM audit_log) AS audit_seq,"
                              + " (SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1) AS audit_head")
                      .execute())
              .iterator()
              .next();
      lastSeq = r.getLong("last") == null ? 0 : r.getLong("last");
      if (r.getLong("audit_seq") != null) {
        auditSeq = r.getLong("audit_seq");
        auditHead = r.getString("audit_head");
      }
    } catch (RowWriter.WriteFailed e) {
      if (spool.isEmpty()) {
        throw new IOException(
            "SEN-DB-010 PostgreSQL does not answer and the spool is empty: the journal cannot know"
                + " where the log ends ("
                + e.getMessage()
                + ")",
            e);
      }
      LOG.warnf(
          "SEN-DB-011 PostgreSQL does not answer (%s); continuing from the spool", e.getMessage());
    }
    for (io.sentinel.store.Row row : spool.pending()) {
      if (row.table() == Table.AUDIT_LOG) {
        if (row.seq() > auditSeq) {
          auditSeq = row.seq();
          auditHead = row.value("hash");
        }
      } else {
        lastSeq = Math.max(lastSeq, row.seq());
      }
    }
    Journal j =
        new Journal(
            pool, settings, spool, alarms, clock, lastSeq, new AuditChain(auditSeq, auditHead));
    j.thread.start();
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

  /** A sequence number for the journal's own event, taken under the lock offers take. */
  private synchronized long ownSeq() {
    return nextSeq.getAndIncrement();
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
    return item.lastSeq();
  }

  /** Everything up to this sequence number is in PostgreSQL or forced to the spool on disk. */
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

  private void markDurable(long seq) {
    if (seq > durableSeq) {
      durableSeq = seq;
      try {
        durableMoved.run();
      } catch (RuntimeException e) {
        // The mark itself has moved; whoever waits for it also checks it after each pass.
        LOG.debugf("durable mark listener failed: %s", e.getMessage());
      }
    }
  }

  /** Offers waiting for the writer (a load generator keeps below the capacity with it). */
  public int backlog() {
    return queue.size();
  }

  /** Whether PostgreSQL is behind (rows are going to the spool). */
  public boolean degraded() {
    return degraded;
  }

  public Stats stats() {
    return new Stats(offered, written, spooled, lost.get(), durableSeq, degraded, spool.bytes());
  }

  /** Waits until everything offered so far is durable (or counted lost); false on timeout. */
  public boolean flush(Duration timeout) {
    long target = lastOffered;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (settledSeq < target && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return settledSeq >= target;
  }

  /** Waits until the spool is drained into PostgreSQL too; false on timeout. */
  public boolean drain(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while ((degraded || !queue.isEmpty() || settledSeq < lastOffered)
        && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return !degraded && settledSeq >= lastOffered;
  }

  @Override
  public void close() {
    flush(settings.writeTimeout().multipliedBy(2));
    running = false;
    thread.interrupt();
    try {
      thread.join(settings.writeTimeout().multipliedBy(2).toMillis());
      spool.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void run() {
    List<Item> items = new ArrayList<>();
    while (running || !queue.isEmpty()) {
      try {
        Item first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first != null) {
          items.add(first);
          queue.drainTo(items, Math.max(1, settings.batchRows() / 4));
          handle(rowsOf(items));
          items.clear();
        }
        if (degraded || !spool.isEmpty()) {
          drainSpool();
        } else {
          maintain();
        }
      } catch (InterruptedException e) {
        if (!running) {
          // Closing: take what is still queued before leaving.
          queue.drainTo(items);
          try {
            handle(rowsOf(items));
          } catch (RuntimeException | IOException ex) {
            LOG.errorf(ex, "SEN-DB-020 journal rows not kept at close");
          }
          return;
        }
      } catch (IOException | RuntimeException e) {
        // A defect or a full disk must not stop the log: say it, and go on with the next batch.
        LOG.errorf(e, "SEN-DB-021 journal batch failed");
      }
    }
  }

  private List<io.sentinel.store.Row> rowsOf(List<Item> items) {
    List<io.sentinel.store.Row> rows = new ArrayList<>();
    for (Item item : items) {
      List<AuditEntry> audit;
      if (item instanceof PassItem p) {
        rows.addAll(Rows.of(p.pass(), p.firstSeq()));
        audit = p.audit();
      } else {
        RowsItem r = (RowsItem) item;
        rows.addAll(r.rows());
        audit = r.audit();
      }
      // The chain is sealed here, in the order rows are kept, before they go anywhere.
      audit.forEach(e -> rows.add(Rows.audit(chain.append(e))));
    }
    return rows;
  }

  private void handle(List<io.sentinel.store.Row> rows) throws IOException {
    handle(rows, true);
  }

  /**
   * Rows of offers, in the order they were offered (so their highest number is the durable mark
   * once they are kept), or the journal's own event ({@code marks} false).
   */
  private void handle(List<io.sentinel.store.Row> rows, boolean marks) throws IOException {
    if (rows.isEmpty()) {
      return;
    }
    if (!degraded && spool.isEmpty()) {
      try {
        writer.write(rows);
        written += rows.size();
        if (marks) {
          markDurable(maxSeq(rows));
          settledSeq = Math.max(settledSeq, durableSeq);
        }
        return;
      } catch (RowWriter.WriteFailed e) {
        degrade(e.getMessage());
      }
    }
    toSpool(rows, marks);
  }

  private void toSpool(List<io.sentinel.store.Row> rows, boolean marks) throws IOException {
    int taken = spool.append(rows);
    spooled += taken;
    if (taken > 0 && marks) {
      markDurable(maxSeq(rows.subList(0, taken)));
    }
    if (marks) {
      settledSeq = Math.max(settledSeq, maxSeq(rows));
    }
    if (taken < rows.size()) {
      long n = lost.addAndGet(rows.size() - taken);
      overflow(
          "the spool is full ("
              + spool.bytes()
              + " of "
              + settings.spoolMaxBytes()
              + " bytes) while PostgreSQL is away",
          n);
    } else if (overflowing && spool.bytes() < settings.spoolMaxBytes() / 2) {
      settle();
    }
  }

  private void drainSpool() throws IOException {
    Instant now = clock.instant();
    if (now.isBefore(nextAttempt)) {
      return;
    }
    Spool.Batch batch = spool.peek(settings.batchRows());
    if (batch.rows().isEmpty()) {
      spool.advance(batch);
      recover();
      return;
    }
    try {
      writer.write(batch.rows());
      spool.advance(batch);
      written += batch.rows().size();
      if (spool.isEmpty()) {
        recover();
      }
    } catch (RowWriter.WriteFailed e) {
      nextAttempt = now.plus(settings.retryEvery());
      LOG.debugf("spool drain waits: %s", e.getMessage());
    }
  }

  private void degrade(String why) throws IOException {
    degraded = true;
    Instant now = clock.instant();
    nextAttempt = now.plus(settings.retryEvery());
    String message = "PostgreSQL did not take a batch (" + why + "): rows go to the spool on disk";
    LOG.warnf("SEN-DB-030 %s", message);
    ControlEvent e = new ControlEvent("journal-degraded", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.degraded", Value.TRUE, now));
    spoolOwn(e);
  }

  /**
   * The spool is drained: the journal's recovery (and any loss it counted) is written first, and
   * only then does it say it has recovered, so whoever waits for {@link #drain} finds them logged.
   */
  private void recover() throws IOException {
    if (!degraded) {
      return;
    }
    Instant now = clock.instant();
    String message = "PostgreSQL takes batches again: the spool is drained, in order";
    ControlEvent e = new ControlEvent("journal-recovered", "journal", message, now);
    List<io.sentinel.store.Row> own = new ArrayList<>();
    own.add(Rows.event(ownSeq(), e));
    if (overflowing) {
      own.add(Rows.event(ownSeq(), settled()));
    }
    try {
      writer.write(own);
    } catch (RowWriter.WriteFailed failed) {
      spool.append(own);
      nextAttempt = now.plus(settings.retryEvery());
      return;
    }
    LOG.infof("SEN-DB-031 %s", message);
    alarms.raised(e, new SelfPoint("journal.degraded", Value.FALSE, now));
    degraded = false;
  }

  /** The journal's own event goes the way of the rows around it, so the log keeps its order. */
  private void spoolOwn(ControlEvent e) throws IOException {
    toSpool(List.of(Rows.event(ownSeq(), e)), false);
  }

  /**
   * The journal's own event, written like any batch but without moving the durable mark: its number
   * may lie past offers still queued.
   */
  private void handleOwn(io.sentinel.store.Row row) throws IOException {
    handle(List.of(row), false);
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
  private void settle() throws IOException {
    io.sentinel.store.Row row = Rows.event(ownSeq(), settled());
    if (degraded || !spool.isEmpty()) {
      spool.append(List.of(row));
    } else {
      handleOwn(row);
    }
  }

  /** Ends an overflow: says it, and returns the journal-lost event with the count. */
  private ControlEvent settled() {
    overflowing = false;
    long n = lost.get() - lostReported;
    lostReported = lost.get();
    Instant now = clock.instant();
    String message = n + " journal records were lost while the journal was full";
    LOG.warnf("SEN-DB-033 %s", message);
    ControlEvent e = new ControlEvent("journal-lost", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.overflow", Value.FALSE, now));
    return e;
  }

  /** Daily: partitions for the days ahead, and retention. Only while PostgreSQL answers. */
  private void maintain() {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    if (today.equals(maintainedFor)) {
      return;
    }
    try {
      writer.await(
          pool.preparedQuery(
                  "SELECT sentinel_observation_partitions($1::text::date, 4),"
                      + " sentinel_drop_observations_before($2::text::date)")
              .execute(
                  io.vertx.sqlclient.Tuple.of(
                      today.minusDays(1).toString(),
                      today.minusDays(Math.max(1, settings.retention().toDays())).toString())));
      maintainedFor = today;
    } catch (RowWriter.WriteFailed e) {
      LOG.debugf("partition maintenance waits: %s", e.getMessage());
    }
  }

  private static long maxSeq(List<io.sentinel.store.Row> rows) {
    long m = Long.MIN_VALUE;
    for (io.sentinel.store.Row r : rows) {
      if (r.table() != Table.AUDIT_LOG) {
        m = Math.max(m, r.seq());
      }
    }
    return m;
  }
}
