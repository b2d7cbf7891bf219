package io.sentinel.store.wal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Group commit over a {@link SegmentLog}: a writer thread takes what waits on the queue, encodes
 * each item into one record and appends it; a syncing thread forces what was written (one {@code
 * fdatasync} for everything appended since the last) and then says how far it is durable. While one
 * batch syncs the next is encoded and written, so the sync rate adapts to the load: one sync a
 * record when idle, thousands of records a sync under load.
 *
 * <p>The log's bound: an item that would take it past {@code maxBytes} waits (so does everything
 * behind it) until the feeder has deleted segments; the listener hears it at once.
 */
public final class GroupCommit<T> implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GroupCommit.class);

  /** Turns an item into a record, on the writer's thread. */
  public interface Encoder<T> {
    /** The record's payload; {@code length} bytes of it are written, none when it is empty. */
    Encoded encode(T item);

    /** The mark an item carries (the journal's sequence number); durable once it is synced. */
    long mark(T item);
  }

  /** A payload and how many of its bytes hold the record (a reused buffer may be longer). */
  public record Encoded(byte[] bytes, int length) {
    public static final Encoded NONE = new Encoded(new byte[0], 0);
  }

  /** What the log tells its owner; on the writer's or the syncer's thread, must return soon. */
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
  private final Thread writer;
  private final Thread syncer;
  private final Object lock = new Object();
  private long writtenMark = Long.MIN_VALUE;
  private Position writtenEnd;
  private long syncedMark = Long.MIN_VALUE;
  private volatile Position durableEnd;
  private volatile boolean running = true;
  private volatile boolean writerDone;
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
    this.writtenEnd = durableEnd;
    this.writer = new Thread(this::write, name + "-writer");
    this.syncer = new Thread(this::sync, name + "-sync");
    writer.setDaemon(true);
    syncer.setDaemon(true);
  }

  public void start() {
    writer.start();
    syncer.start();
  }

  /** How far the log is on disk: readers read up to here. */
  public Position durableEnd() {
    return durableEnd;
  }

  public Stats stats() {
    return new Stats(syncs.get(), syncNanos.get(), maxSyncNanos, records, bytes);
  }

  private void write() {
    List<T> batch = new ArrayList<>();
    while (running || !queue.isEmpty()) {
      try {
        T first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, maxBatch - 1);
        long mark = Long.MIN_VALUE;
        Position end = null;
        for (T item : batch) {
          Encoded e = encoder.encode(item);
          if (e.length() > 0) {
            if (!hasRoom(e.length())) {
              // What this batch wrote so far is synced and fed first: that is what makes room.
              publish(mark, end);
              awaitRoom(e.length());
            }
            end = appendRetrying(e);
            records++;
            bytes += SegmentLog.framed(e.length());
          }
          mark = Math.max(mark, encoder.mark(item));
        }
        batch.clear();
        publish(mark, end);
      } catch (InterruptedException e) {
        // closing: the loop takes what is still queued
      }
    }
    synchronized (lock) {
      writerDone = true;
      lock.notifyAll();
    }
  }

  private void publish(long mark, Position end) {
    synchronized (lock) {
      writtenMark = Math.max(writtenMark, mark);
      if (end != null) {
        writtenEnd = end;
      }
      lock.notifyAll();
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

  private void sync() {
    while (true) {
      long mark;
      Position end;
      synchronized (lock) {
        while (writtenMark <= syncedMark && !writerDone) {
          try {
            lock.wait(100);
          } catch (InterruptedException e) {
            // closing: the writer says when it is done
          }
        }
        if (writtenMark <= syncedMark && writerDone) {
          return;
        }
        mark = writtenMark;
        end = writtenEnd;
      }
      try {
        long t0 = System.nanoTime();
        log.force();
        long took = System.nanoTime() - t0;
        syncs.incrementAndGet();
        syncNanos.addAndGet(took);
        if (took > maxSyncNanos) {
          maxSyncNanos = took;
        }
        syncedMark = mark;
        durableEnd = end;
        listener.durable(mark, end);
      } catch (IOException e) {
        listener.failed(e);
        try {
          Thread.sleep(1000);
        } catch (InterruptedException ie) {
          // retried at once
        }
      } catch (RuntimeException e) {
        LOG.errorf(e, "SEN-DB-007 the journal's durable mark listener failed");
      }
    }
  }

  /** Writes and syncs what is queued, then stops both threads. */
  @Override
  public void close() {
    // No interrupt: one that lands in a FileChannel write closes the channel.
    running = false;
    try {
      writer.join(10_000);
      syncer.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
