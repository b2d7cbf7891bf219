package io.sentinel.store.wal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jboss.logging.Logger;

/**
 * Group commit over a {@link SegmentLog}: one thread takes everything that waits on the queue,
 * encodes each item into one record, appends it, forces what it appended (one {@code fdatasync} for
 * the whole batch) and then says how far it is durable. What arrives while it syncs waits on the
 * queue and is the next batch, so the sync rate adapts to the load: one sync a record when idle,
 * thousands of records a sync under load. One thread, not a writer and a syncer: a batch costs one
 * wake-up of one thread instead of a hand-off between two (issue 24: thread hand-offs were most of
 * the gateway's CPU per pass).
 *
 * <p>The log's bound: an item that would take it past {@code maxBytes} waits (so does everything
 * behind it) until the feeder has deleted segments, after what was written before it is synced; the
 * listener hears it at once.
 */
public final class GroupCommit<T> implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GroupCommit.class);

  /** Turns an item into a record, on the journal's thread. */
  public interface Encoder<T> {
    /** The record's payload; {@code length} bytes of it are written, none when it is empty. */
    Encoded encode(T item);

    /** The mark an item carries (the journal's sequence number); durable once it is synced. */
    long mark(T item);

    /**
     * The item's record is in the log between {@code from} (where the record before it ended) and
     * {@code to}; durable once {@link GroupCommit#durableEnd()} has reached {@code to}.
     */
    default void appended(T item, Position from, Position to) {}
  }

  /** A payload and how many of its bytes hold the record (a reused buffer may be longer). */
  public record Encoded(byte[] bytes, int length) {
    public static final Encoded NONE = new Encoded(new byte[0], 0);
  }

  /** What the log tells its owner; on the journal's thread, must return soon. */
  public interface Listener {
    /** Everything up to {@code mark}, ending at {@code end}, is on disk. */
    void durable(long mark, Position end);

    /** The bound was reached ({@code true}), or there is room again. */
    void full(boolean full, long bytes, long maxBytes);

    /** Writing or syncing failed (the disk): retried, and said until it works. */
    void failed(IOException e);
  }

  /** Counters: syncs, their total and longest duration, records and bytes written. */
  public record Stats(long syncs, long syncNanos, long maxSyncNanos, long records, long bytes) {}

  private final SegmentLog log;
  private final BlockingQueue<T> queue;
  private final Encoder<T> encoder;
  private final long maxBytes;
  private final int maxBatch;
  private final Listener listener;
  private final Thread thread;
  private long syncedMark = Long.MIN_VALUE;
  private volatile long syncEveryNanos;
  private long lastSyncStart = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
  private boolean appendedSinceSync;
  private volatile boolean hurried;

  /** The highest mark and the end of the last append since the last sync; the writer's only. */
  private long pendingMark = Long.MIN_VALUE;

  private Position pendingEnd;
  private volatile Position durableEnd;
  private Position appendedEnd;
  private volatile boolean running = true;
  private final AtomicLong syncs = new AtomicLong();
  private final AtomicLong syncNanos = new AtomicLong();
  private volatile long maxSyncNanos;
  private volatile long records;
  private volatile long bytes;

  public GroupCommit(
      SegmentLog log,
      BlockingQueue<T> queue,
      Encoder<T> encoder,
      long maxBytes,
      int maxBatch,
      Listener listener,
      String name) {
    this.log = log;
    this.queue = queue;
    this.encoder = encoder;
    this.maxBytes = maxBytes;
    this.maxBatch = maxBatch;
    this.listener = listener;
    this.durableEnd = log.end();
    this.appendedEnd = durableEnd;
    this.thread = new Thread(this::run, name + "-writer");
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** How far the log is on disk: readers read up to here. */
  public Position durableEnd() {
    return durableEnd;
  }

  public Stats stats() {
    return new Stats(syncs.get(), syncNanos.get(), maxSyncNanos, records, bytes);
  }

  /**
   * At most one sync every {@code every} (zero: each batch syncs at once). The first record after a
   * sync waits out the rest of it, and what queues meanwhile shares the next sync: at 2,000
   * samples/s a sync a millisecond, each with its wake-ups, had been a third of the gateway's CPU
   * (docs/load.md, session 13). Its price is the wait, in each acknowledgement.
   */
  public void syncAtMostEvery(Duration every) {
    syncEveryNanos = every.toNanos();
  }

  /**
   * What is queued now goes to the kernel without waiting for the next sync: it then survives the
   * process (a crash, a SIGKILL), though not the machine, until that sync. For records whose loss
   * costs more than a write: those of a command already sent (docs/persistence.md).
   */
  public void hurry() {
    hurried = true;
    LockSupport.unpark(thread);
  }

  private void run() {
    List<T> batch = new ArrayList<>();
    while (running || !queue.isEmpty()) {
      try {
        T first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        int taken = awaitSyncTime(batch);
        // Everything waiting goes into this sync, including what queued while it was encoded.
        hurried = false;
        do {
          queue.drainTo(batch, maxBatch - taken - batch.size());
          taken += batch.size();
          appendAll(batch);
        } while (taken < maxBatch && !queue.isEmpty());
        syncThrough(pendingMark, pendingEnd);
        pendingMark = Long.MIN_VALUE;
        pendingEnd = null;
      } catch (InterruptedException e) {
        // closing: the loop takes what is still queued
      }
    }
  }

  /**
   * Waits out the rest of the sync interval. When {@link #hurry} is called meanwhile, what waits is
   * appended and handed to the kernel at once, unforced. Returns how many items it appended.
   */
  private int awaitSyncTime(List<T> batch) throws InterruptedException {
    int taken = 0;
    while (syncEveryNanos > 0 && running) {
      long wait = lastSyncStart + syncEveryNanos - System.nanoTime();
      if (wait <= 0) {
        break;
      }
      if (hurried) {
        hurried = false;
        queue.drainTo(batch, maxBatch - taken - batch.size());
        taken += batch.size();
        appendAll(batch);
        try {
          log.writeOut();
        } catch (IOException e) {
          listener.failed(e); // the sync writes it again, and retries until the disk takes it
        }
      } else {
        LockSupport.parkNanos(wait);
      }
    }
    return taken;
  }

  /** Encodes and appends each item, then empties {@code batch}. */
  private void appendAll(List<T> batch) throws InterruptedException {
    for (T item : batch) {
      Encoded e = encoder.encode(item);
      if (e.length() > 0) {
        if (!hasRoom(e.length())) {
          // What this batch wrote so far is synced and fed first: that is what makes room.
          syncThrough(pendingMark, pendingEnd);
          awaitRoom(e.length());
        }
        Position from = appendedEnd;
        pendingEnd = appendRetrying(e);
        appendedEnd = pendingEnd;
        encoder.appended(item, from, pendingEnd);
        appendedSinceSync = true;
        records++;
        bytes += SegmentLog.framed(e.length());
      }
      pendingMark = Math.max(pendingMark, encoder.mark(item));
    }
    batch.clear();
  }

  /**
   * Forces what was appended since the last sync (retried while the disk fails), then moves the
   * durable mark to {@code mark} and says so; {@code end}: where the last append ended (null: none
   * in this batch).
   */
  private void syncThrough(long mark, Position end) throws InterruptedException {
    if (mark == Long.MIN_VALUE || (mark <= syncedMark && end == null)) {
      return;
    }
    if (appendedSinceSync) {
      while (true) {
        try {
          long t0 = System.nanoTime();
          lastSyncStart = t0;
          log.force();
          long took = System.nanoTime() - t0;
          syncs.incrementAndGet();
          syncNanos.addAndGet(took);
          if (took > maxSyncNanos) {
            maxSyncNanos = took;
          }
          appendedSinceSync = false;
          break;
        } catch (IOException e) {
          listener.failed(e);
          Thread.sleep(1000);
        }
      }
    }
    syncedMark = Math.max(syncedMark, mark);
    if (end != null) {
      durableEnd = end;
    }
    try {
      listener.durable(syncedMark, durableEnd);
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-DB-007 the journal's durable mark listener failed");
    }
  }

  private boolean hasRoom(int length) {
    return log.bytes() + SegmentLog.framed(length) <= maxBytes || log.segmentCount() <= 1;
  }

  /**
   * Waits while the record would take the log past its bound (the newest segment is never deleted:
   * the journal keeps segments well under the bound).
   */
  private void awaitRoom(int length) throws InterruptedException {
    boolean full = false;
    while (running && !hasRoom(length)) {
      if (!full) {
        full = true;
        listener.full(true, log.bytes(), maxBytes);
      }
      Thread.sleep(50);
    }
    if (full) {
      listener.full(false, log.bytes(), maxBytes);
    }
  }

  private Position appendRetrying(Encoded e) throws InterruptedException {
    while (true) {
      try {
        return log.append(e.bytes(), e.length());
      } catch (IOException failed) {
        listener.failed(failed);
        Thread.sleep(1000);
      }
    }
  }

  /** Writes and syncs what is queued, then stops the thread. */
  @Override
  public void close() {
    // No interrupt: one that lands in a FileChannel write closes the channel.
    running = false;
    LockSupport.unpark(thread); // out of a wait for the next sync: closing syncs now
    try {
      thread.join(20_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
