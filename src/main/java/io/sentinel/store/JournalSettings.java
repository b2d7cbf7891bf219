package io.sentinel.store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The journal's settings (docs/persistence.md; the runtime fills them from {@code
 * sentinel.journal.*}, {@link StoreConfig}).
 *
 * @param queueCapacity offers waiting for the writer
 * @param batchRows rows per PostgreSQL transaction at most
 * @param dir the journal's folder (never inside a site folder)
 * @param maxBytes the journal's bound on disk
 * @param segmentBytes one segment file's size (kept at most a quarter of the bound)
 * @param writeTimeout a PostgreSQL batch not committed within this is retried
 * @param retryEvery the first wait before PostgreSQL is tried again; doubled up to {@code retryMax}
 * @param retention observation partitions older than this are dropped
 * @param stuckAfter the journal unable to move this long is a stall: liveness goes down ({@link
 *     Journal#stall()})
 */
public record JournalSettings(
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
  public static JournalSettings defaults(Path dir) {
    return new JournalSettings(
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

  public JournalSettings withBound(long maxBytes, long segmentBytes) {
    return with(queueCapacity, maxBytes, segmentBytes, retryEvery, retryMax);
  }

  /**
   * Segments of at most a quarter of the disk bound, at least 4 KiB: segments are deleted whole, so
   * the bound spans several that PostgreSQL's progress can free one by one.
   */
  JournalSettings withSegmentsFitting() {
    return withBound(maxBytes, Math.max(4096, Math.min(segmentBytes, maxBytes / 4)));
  }

  public JournalSettings withQueue(int capacity) {
    return with(capacity, maxBytes, segmentBytes, retryEvery, retryMax);
  }

  public JournalSettings withRetry(Duration every, Duration max) {
    return with(queueCapacity, maxBytes, segmentBytes, every, max);
  }

  private JournalSettings with(
      int capacity, long maxBytes, long segmentBytes, Duration every, Duration max) {
    return new JournalSettings(
        capacity,
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
