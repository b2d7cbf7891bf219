package io.sentinel.store;

import io.sentinel.audit.AuditRecord;
import io.sentinel.store.wal.Position;
import io.sentinel.store.wal.SegmentLog;
import io.sentinel.store.wal.TornTail;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * What the journal learns at open from the records PostgreSQL has not taken: where the log ends
 * (the highest sequence number, the audit chain's head), how many records wait, the latest of each
 * state row (point value, cooldown, snapshot, acknowledgement mark) for the restart to restore on
 * top of PostgreSQL's, and the MQTT samples after the last acknowledgement mark ({@link
 * RedeliveryTail}). {@code firstSeq}: the lowest sequence number of those records (0 when none).
 */
record Recovered(
    long lastSeq,
    long auditSeq,
    String auditHead,
    long records,
    long firstSeq,
    List<Row> state,
    List<Row> tail) {
  private static final Logger LOG = Logger.getLogger(Recovered.class);

  /** What the journal opens with: what it recovered, and where its feeding starts. */
  record Opened(Recovered recovered, FedState fed) {}

  /**
   * Learns where the log ends, naming a torn tail (SEN-DB-061) and records PostgreSQL has yet to
   * take (SEN-DB-062): from the folder (its feed state and the records after it), else, for an
   * empty folder with no feed state, from PostgreSQL ({@link #fromDatabase}).
   */
  static Opened open(
      SegmentLog log,
      java.nio.file.Path dir,
      Pool pool,
      Optional<Feeder.Migrator> migrator,
      InstantSource clock)
      throws IOException {
    for (TornTail t : log.tornTails()) {
      LOG.warnf(
          "SEN-DB-061 the journal was cut at %s: every complete record before it is kept (a record"
              + " cut by a crash was never synced, so never acknowledged)",
          t);
    }
    Optional<FedState> fed = FedState.read(dir);
    Position from = fed.map(FedState::position).orElse(log.first());
    if (from.before(log.first())) {
      from = log.first();
    }
    Recovered r = Recovered.scan(log, from, fed);
    FedState start = fed.orElse(FedState.none(from));
    if (fed.isEmpty() && r.records() == 0) {
      r = r.fromDatabase(pool, migrator.orElse(() -> {}), clock);
      start = new FedState(from, r.lastSeq(), r.auditSeq(), r.auditHead());
    } else if (r.records() > 0) {
      LOG.infof(
          "SEN-DB-062 the journal in %s holds %d records PostgreSQL has not taken yet (up to seq"
              + " %d): they go first",
          dir, r.records(), r.lastSeq());
    }
    return new Opened(r, start);
  }

  static Recovered scan(SegmentLog log, Position from, Optional<FedState> fed) throws IOException {
    long last = fed.map(FedState::lastSeq).orElse(0L);
    long auditSeq = fed.map(FedState::auditSeq).orElse(0L);
    String head = fed.map(FedState::auditHead).orElse(AuditRecord.GENESIS);
    long records = 0;
    long first = 0;
    Map<String, Row> state = new LinkedHashMap<>();
    Row snapshot = null;
    RedeliveryTail.Collector tail = new RedeliveryTail.Collector();
    try (SegmentLog.Reader r = log.reader(from)) {
      byte[] record;
      Position end = log.end();
      while ((record = r.next(end)) != null) {
        records++;
        for (Row row : RowCodec.decode(record)) {
          switch (row.table()) {
            case AUDIT_LOG -> {
              auditSeq = row.seq();
              head = row.value("hash");
            }
            case POINT_VALUES, ACTION_COOLDOWNS -> state.put(row.table().name + row.key(), row);
            case INGEST_ACKNOWLEDGED -> state.put(row.table().name + row.key(), row);
            case DERIVED_SNAPSHOTS -> snapshot = row;
            default -> {}
          }
          tail.add(row);
          if (row.table() != Table.AUDIT_LOG) {
            last = Math.max(last, row.seq());
            first = first == 0 ? row.seq() : Math.min(first, row.seq());
          }
        }
      }
    }
    List<Row> rows = new ArrayList<>(state.values());
    if (snapshot != null) {
      rows.add(snapshot);
    }
    return new Recovered(last, auditSeq, head, records, first, rows, tail.rows());
  }

  /**
   * An empty journal with no record of what PostgreSQL has (a first start, or a new folder): the
   * end of the log is PostgreSQL's, waited for while PostgreSQL is there ({@link LogEnd}). If it is
   * not there, numbering starts from the clock (epoch milliseconds times 1,000: above any earlier
   * run's numbers), and the audit chain starts anew; both are said.
   */
  Recovered fromDatabase(Pool pool, Feeder.Migrator migrator, InstantSource clock) {
    LogEnd.Answer a = LogEnd.ask(pool, migrator, LogEnd.PATIENCE);
    if (a.end().isPresent()) {
      LogEnd.End e = a.end().get();
      return new Recovered(e.lastSeq(), e.auditSeq(), e.auditHead(), 0, 0, state, tail);
    }
    long base = clock.millis() * 1000;
    LOG.warnf(
        "SEN-DB-012 PostgreSQL is not there (%s) and the journal's folder is new: numbering"
            + " starts at %d, and the audit chain starts anew (audit verify names the break)",
        a.why(), base);
    return new Recovered(base, 0, AuditRecord.GENESIS, 0, 0, state, tail);
  }
}
