package io.sentinel.store;

import io.sentinel.store.wal.Position;
import io.sentinel.store.wal.SegmentLog;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * PostgreSQL's side of the journal: one thread reads the synced records in order and writes their
 * rows in large batches ({@link RowWriter}: one transaction, one unnest() INSERT per table; a row
 * written twice is a no-op). After each commit it keeps how far it got ({@link FedState}, in place
 * and synced at most every second: {@link FedFile}) and deletes the segments PostgreSQL has.
 * PostgreSQL away: the batch waits and is retried with backoff ({@code retryEvery} doubling up to
 * {@code retryMax}), the journal is degraded. A batch PostgreSQL refuses is split until the refused
 * rows are found; they go to {@link DeadLetters} and the rest flows on.
 */
final class Feeder {
  private static final Logger LOG = Logger.getLogger(Feeder.class);

  /** The {@code fed} file is synced at most this often (a power cut feeds at most this again). */
  static final Duration FED_SYNC_EVERY = Duration.ofSeconds(1);

  /**
   * Under load, one batch at most this often (a batch that fills {@code batchRows} is followed at
   * once): a busy journal is fed in fewer, larger transactions, each a round of wake-ups of the
   * feeder and the PostgreSQL client's threads (issue 24). An idle feeder looks at once.
   */
  static final Duration FEED_EVERY = Duration.ofMillis(50);

  /** What the feeder tells the journal (its events go into the log like any other). */
  interface Events {
    void degraded(String why);

    void recovered();

    void deadLettered(Row row, String reason);

    /** Each round of the feeder's loop: the journal looks whether it moves (JournalWatch). */
    void tick();
  }

  /** The schema step run before the first batch (Flyway; a no-op for a migrated database). */
  @FunctionalInterface
  interface Migrator {
    void migrate() throws Exception;
  }

  private final SegmentLog log;
  private final RecentRecords recent;
  private final Supplier<Position> durableEnd;
  private final Pool pool;
  private final RowWriter writer;
  private final DeadLetters deadLetters;
  private final JournalSettings settings;
  private final Migrator migrator;
  private final Events events;
  private final InstantSource clock;
  private final Thread thread;
  private final Object wake = new Object();
  private final FedFile fedFile;
  private volatile FedState fed;
  private volatile boolean running = true;
  private volatile boolean pacing;
  private long readNanos;
  private volatile boolean degraded;
  private volatile boolean migrated;
  private volatile String lastError = "";
  private volatile long written;
  private volatile long batches;
  private volatile long batchNanos;
  private volatile long fedFromMemory;
  private volatile long fedFromDisk;
  private volatile long caughtUpNanos = System.nanoTime();
  private volatile boolean caughtUp = true;
  private volatile long failingSince;
  private Duration backoff;
  private LocalDate maintainedFor;

  /** The batch read from the log and not yet committed, and where the log is after it. */
  private List<Row> batch = new ArrayList<>();

  private Position batchEnd;
  private SegmentLog.Reader reader;

  Feeder(
      SegmentLog log,
      RecentRecords recent,
      Supplier<Position> durableEnd,
      Pool pool,
      JournalSettings settings,
      FedState fed,
      java.util.Optional<Migrator> migrator,
      Events events,
      InstantSource clock) {
    this.log = log;
    this.recent = recent;
    this.durableEnd = durableEnd;
    this.pool = pool;
    this.writer = new RowWriter(pool, settings.writeTimeout());
    this.deadLetters = new DeadLetters(writer, pool, log.dir().resolve("dead-letters.ndjson"));
    this.settings = settings;
    this.fed = fed;
    this.fedFile = new FedFile(log.dir(), FED_SYNC_EVERY, System::nanoTime);
    this.migrator = migrator.orElse(() -> {});
    this.migrated = migrator.isEmpty();
    this.events = events;
    this.clock = clock;
    this.backoff = settings.retryEvery();
    this.thread = new Thread(this::run, "sentinel-journal-feed");
    thread.setDaemon(true);
  }

  void start() {
    reader = log.reader(fed.position());
    thread.start();
  }

  /**
   * The journal synced more: an idle feeder looks at once; one between two batches keeps its pace.
   */
  void synced() {
    if (!pacing) {
      nudge();
    }
  }

  /** Look now (a drain, a close): also between two batches. */
  void nudge() {
    synchronized (wake) {
      wake.notifyAll();
    }
  }

  FedState fed() {
    return fed;
  }

  boolean degraded() {
    return degraded || !migrated;
  }

  String lastError() {
    return lastError;
  }

  long written() {
    return written;
  }

  long deadLettered() {
    return deadLetters.count();
  }

  /** Commits to PostgreSQL and their total duration. */
  long batches() {
    return batches;
  }

  long batchNanos() {
    return batchNanos;
  }

  /** Records taken as the writer kept them, and records read back from disk. */
  long fedFromMemory() {
    return fedFromMemory;
  }

  long fedFromDisk() {
    return fedFromDisk;
  }

  /** How long PostgreSQL has been behind the journal (zero when it has everything synced). */
  Duration lag() {
    return caughtUp ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - caughtUpNanos);
  }

  /**
   * Since when PostgreSQL has answered every batch with an error (a missing table, its disk full:
   * not an absence, nor one row, which is set aside), as {@link System#nanoTime()}; 0 while it does
   * not.
   */
  long refusingSince() {
    return failingSince;
  }

  /** Whether PostgreSQL has everything the log had synced when the feeder last looked. */
  boolean caughtUp() {
    return caughtUp && !fed.position().before(durableEnd.get());
  }

  void close(Duration wait) {
    running = false;
    nudge();
    try {
      thread.join(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      reader.close();
    } catch (IOException e) {
      LOG.debugf("journal reader close: %s", e.getMessage());
    }
    try {
      if (thread.isAlive()) {
        fedFile.sync(); // a batch still under way writes it again: the file stays open for it
      } else {
        fedFile.close();
      }
    } catch (IOException e) {
      LOG.debugf("journal fed file close: %s", e.getMessage());
    }
  }

  private void run() {
    while (running) {
      try {
        events.tick();
      } catch (RuntimeException e) {
        LOG.debugf("journal watch: %s", e.getMessage());
      }
      try {
        if (!migrated) {
          migrator.migrate();
          migrated = true;
        }
        maintain();
        if (batch.isEmpty()) {
          read();
        }
        if (batch.isEmpty()) {
          caughtUp = true;
          caughtUpNanos = System.nanoTime();
          fedFile.syncIfDue();
          idle(100);
          continue;
        }
        caughtUp = false;
        int rows = batch.size();
        feed(batch);
        commit();
        if (rows < settings.batchRows()) {
          pace();
        }
      } catch (RowWriter.WriteFailed e) {
        failed(e.getMessage(), e.answered());
      } catch (Exception e) {
        failed(e.getMessage() == null ? e.toString() : e.getMessage(), false);
      }
    }
  }

  /**
   * Reads up to {@code batchRows} rows of synced records: those just written as the writer kept
   * them, the others (the feeder behind) from disk.
   */
  private void read() throws IOException {
    readNanos = System.nanoTime();
    Position limit = durableEnd.get();
    while (batch.size() < settings.batchRows()) {
      RecentRecords.Entry kept = recent.next(reader.position(), limit);
      if (kept != null) {
        batch.addAll(kept.rows());
        reader.skipTo(kept.to());
        fedFromMemory++;
        continue;
      }
      byte[] record = reader.next(limit);
      if (record == null) {
        break;
      }
      batch.addAll(RowCodec.decode(record));
      fedFromDisk++;
    }
    batchEnd = reader.position();
  }

  /** Writes rows; a refusal splits them until the refused rows are found and set aside. */
  private void feed(List<Row> rows) throws RowWriter.WriteFailed {
    long t0 = System.nanoTime();
    try {
      writer.write(rows);
      batches++;
      batchNanos += System.nanoTime() - t0;
    } catch (RowWriter.WriteFailed e) {
      if (!e.refused()) {
        throw e;
      }
      if (rows.size() == 1) {
        String reason = e.getMessage();
        deadLetters.setAside(rows.get(0), reason);
        events.deadLettered(rows.get(0), reason);
        return;
      }
      int half = rows.size() / 2;
      feed(rows.subList(0, half));
      feed(rows.subList(half, rows.size()));
    }
  }

  private void commit() throws IOException {
    long last = fed.lastSeq();
    long auditSeq = fed.auditSeq();
    String auditHead = fed.auditHead();
    for (Row r : batch) {
      if (r.table() == Table.AUDIT_LOG) {
        auditSeq = r.seq();
        auditHead = r.value("hash");
      } else {
        last = Math.max(last, r.seq());
      }
    }
    written += batch.size();
    FedState next = new FedState(batchEnd, last, auditSeq, auditHead);
    // In place, synced at most every second: losing the latest only feeds its rows again.
    fedFile.write(next);
    fed = next;
    if (log.first().segment() < batchEnd.segment()) {
      fedFile.sync(); // segments go: the mark on disk must be past them first
    }
    log.deleteBefore(batchEnd.segment());
    batch = new ArrayList<>();
    failingSince = 0;
    backoff = settings.retryEvery();
    if (degraded) {
      degraded = false;
      lastError = "";
      LOG.infof("SEN-DB-031 PostgreSQL takes the journal's batches again: it catches up in order");
      events.recovered();
    }
  }

  /**
   * @param answered PostgreSQL answered with an error (a missing table, a full disk): the feeder is
   *     stuck once every batch is answered so for a while; otherwise PostgreSQL is away, and the
   *     journal waits for it (an absence ends the refusal: the error of a stopping server, then
   *     refused connections, had liveness down after a minute of a mere outage)
   */
  private void failed(String why, boolean answered) {
    String message = why == null ? "unknown" : why;
    lastError = message;
    if (!answered) {
      failingSince = 0;
    } else if (failingSince == 0) {
      failingSince = System.nanoTime() | 1;
    }
    if (!degraded) {
      degraded = true;
      LOG.warnf(
          "SEN-DB-030 PostgreSQL does not take the journal's batches (%s): the local journal"
              + " holds them, retried with backoff up to %s",
          message, settings.retryMax());
      events.degraded(message);
    } else {
      LOG.debugf("journal feed waits %s: %s", backoff, message);
    }
    idle(backoff.toMillis());
    backoff = backoff.multipliedBy(2);
    if (backoff.compareTo(settings.retryMax()) > 0) {
      backoff = settings.retryMax();
    }
  }

  /** Waits until {@link #FEED_EVERY} after the last read began (a drain or a close ends it). */
  private void pace() {
    long wait = readNanos + FEED_EVERY.toNanos() - System.nanoTime();
    if (wait <= 0 || !running) {
      return;
    }
    pacing = true;
    try {
      idle(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(wait));
    } finally {
      pacing = false;
    }
  }

  private void idle(long millis) {
    synchronized (wake) {
      try {
        wake.wait(Math.max(1, millis));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Daily: partitions for the days ahead, and retention. Only while PostgreSQL answers. */
  private void maintain() throws RowWriter.WriteFailed {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    if (today.equals(maintainedFor)) {
      return;
    }
    writer.await(
        pool.preparedQuery(
                "SELECT sentinel_observation_partitions($1::text::date, 4),"
                    + " sentinel_drop_observations_before($2::text::date)")
            .execute(
                Tuple.of(
                    today.minusDays(1).toString(),
                    today.minusDays(Math.max(1, settings.retention().toDays())).toString())));
    maintainedFor = today;
  }
}
