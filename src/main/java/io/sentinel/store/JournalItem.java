package io.sentinel.store;

import io.sentinel.audit.AuditChain;
import io.sentinel.audit.AuditEntry;
import io.sentinel.passlog.PassRecord;
import io.sentinel.store.wal.GroupCommit;
import io.sentinel.store.wal.Position;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link Journal} puts on its queue for the writer: a pass (numbered from {@code firstSeq},
 * its rows made on the writer's thread) or rows already made; each with the audit entries to seal
 * into the chain.
 */
sealed interface JournalItem {
  long lastSeq();

  List<AuditEntry> audit();

  /** The item's own rows, without the audit's. */
  List<Row> rows();

  record OfPass(long firstSeq, int seqs, PassRecord pass, List<AuditEntry> audit)
      implements JournalItem {
    @Override
    public long lastSeq() {
      return firstSeq + seqs - 1;
    }

    @Override
    public List<Row> rows() {
      return Rows.of(pass, firstSeq);
    }
  }

  record OfRows(List<Row> rows, List<AuditEntry> audit, long lastSeq) implements JournalItem {
    /** Rows without audit entries, numbered {@code seq}. */
    OfRows(long seq, List<Row> rows) {
      this(rows, List.of(), seq);
    }
  }

  /**
   * The writer's encoder: on the writer's thread, an item's rows, the audit chain sealed in the
   * order they are kept; each record's rows are kept in {@code recent} for the feeder.
   */
  static GroupCommit.Encoder<JournalItem> encoder(AuditChain chain, RecentRecords recent) {
    RowCodec codec = new RowCodec();
    return new GroupCommit.Encoder<>() {
      private List<Row> encoded = List.of();

      @Override
      public GroupCommit.Encoded encode(JournalItem item) {
        List<Row> rows = rowsOf(item, chain);
        if (rows.isEmpty()) {
          return GroupCommit.Encoded.NONE;
        }
        encoded = rows;
        return new GroupCommit.Encoded(codec.encode(rows), codec.length());
      }

      @Override
      public long mark(JournalItem item) {
        return item.lastSeq();
      }

      @Override
      public void appended(JournalItem item, Position from, Position to) {
        recent.appended(from, to, encoded);
        encoded = List.of();
      }
    };
  }

  private static List<Row> rowsOf(JournalItem item, AuditChain chain) {
    List<Row> rows = item.rows();
    if (item.audit().isEmpty()) {
      return rows;
    }
    List<Row> all = new ArrayList<>(rows);
    item.audit().forEach(e -> all.add(Rows.audit(chain.append(e))));
    return all;
  }
}
