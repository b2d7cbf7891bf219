package io.sentinel.store;

import io.sentinel.store.wal.Position;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The rows of the journal's latest records, as the writer encoded them, for the feeder to take
 * without reading them back from disk and decoding them again (a sixth of the gateway's allocation
 * at 10,000 samples/s, docs/load.md). Bounded: when the feeder falls behind (PostgreSQL away or
 * slow), the oldest go and it reads those from disk as before; the log stays the one source, this
 * only spares reading what was just written.
 */
final class RecentRecords {
  /**
   * Rows kept at most: about four feeder rounds at 10,000 samples/s (a round takes about 530 rows
   * every 50 ms), under 2 MB of heap. No more: rows kept while PostgreSQL is slow outlive young
   * collections, and in the edge JVM's 48 MB heap what is promoted brings full collections nearer.
   */
  static final int MAX_ROWS = 2_048;

  /** One record: where it begins (the record before it ends there) and ends, and its rows. */
  record Entry(Position from, Position to, List<Row> rows) {}

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private final int maxRows;
  private int rows;

  RecentRecords() {
    this(MAX_ROWS);
  }

  RecentRecords(int maxRows) {
    this.maxRows = maxRows;
  }

  /** The writer appended a record (its thread). */
  synchronized void appended(Position from, Position to, List<Row> recordRows) {
    entries.addLast(new Entry(from, to, recordRows));
    rows += recordRows.size();
    while (rows > maxRows) {
      rows -= entries.removeFirst().rows().size();
    }
  }

  /**
   * The record that begins at {@code at}, if it is kept and ends at or before {@code limit} (what
   * is durable); records ending at or before {@code at} are read already and dropped.
   */
  synchronized Entry next(Position at, Position limit) {
    Entry first;
    while ((first = entries.peekFirst()) != null && !at.before(first.to())) {
      rows -= entries.removeFirst().rows().size();
    }
    if (first == null || !first.from().equals(at) || limit.before(first.to())) {
      return null;
    }
    rows -= first.rows().size();
    return entries.removeFirst();
  }
}
