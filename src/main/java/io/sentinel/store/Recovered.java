package io.sentinel.store;

import io.sentinel.audit.AuditRecord;
import io.sentinel.store.wal.Position;
import io.sentinel.store.wal.SegmentLog;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * What the journal learns at open from the records PostgreSQL has not taken: where the log ends
 * (the highest sequence number, the audit chain's head), how many records wait, and the latest of
 * each state row (point value, cooldown, snapshot) for the restart to restore on top of
 * PostgreSQL's. {@code firstSeq}: the lowest sequence number of those records (0 when none).
 */
record Recovered(
    long lastSeq, long auditSeq, String auditHead, long records, long firstSeq, List<Row> state) {
  private static final Logger LOG = Logger.getLogger(Recovered.class);

  /**
   * Where the log in PostgreSQL ends: {@code last} (the highest sequence number of the journal's
   * rows), {@code audit_seq} and {@code audit_head} (the audit chain's last record); nulls when
   * empty.
   */
  static final String END_OF_LOG =
      "SELECT greatest((SELECT max(seq) FROM observations),"
          + " (SELECT max(seq) FROM claim_changes), (SELECT max(seq) FROM decisions),"
          + " (SELECT max(seq) FROM actions), (SELECT max(seq) FROM firings),"
          + " (SELECT max(seq) FROM control_events), (SELECT max(seq) FROM commands),"
          + " (SELECT max(seq) FROM command_states),"
          + " (SELECT max(seq) FROM derived_snapshots)) AS last,"
          + " (SELECT max(seq) FROM audit_log) AS audit_seq,"
          + " (SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1) AS audit_head";

  static Recovered scan(SegmentLog log, Position from, Optional<FedState> fed) throws IOException {
    long last = fed.map(FedState::lastSeq).orElse(0L);
    long auditSeq = fed.map(FedState::auditSeq).orElse(0L);
    String head = fed.map(FedState::auditHead).orElse(AuditRecord.GENESIS);
    long records = 0;
    long first = 0;
    Map<String, Row> state = new LinkedHashMap<>();
    Row snapshot = null;
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
            case DERIVED_SNAPSHOTS -> snapshot = row;
            default -> {}
          }
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
    return new Recovered(last, auditSeq, head, records, first, rows);
  }

  /**
   * An empty journal with no record of what PostgreSQL has (a first start, or a new folder): the
   * end of the log is PostgreSQL's. If it does not answer, numbering starts from the clock (epoch
   * milliseconds times 1,000: above any earlier run's numbers), and the audit chain starts anew;
   * both are said.
   */
  Recovered fromDatabase(
      Pool pool, Duration timeout, Feeder.Migrator migrator, InstantSource clock) {
    RowWriter probe =
        new RowWriter(
            pool, timeout.compareTo(Duration.ofSeconds(3)) > 0 ? Duration.ofSeconds(3) : timeout);
    try {
      migrator.migrate();
      io.vertx.sqlclient.Row r = probe.await(pool.query(END_OF_LOG).execute()).iterator().next();
      long last = r.getLong("last") == null ? 0 : r.getLong("last");
      if (r.getLong("audit_seq") != null) {
        return new Recovered(last, r.getLong("audit_seq"), r.getString("audit_head"), 0, 0, state);
      }
      return new Recovered(last, 0, AuditRecord.GENESIS, 0, 0, state);
    } catch (Exception e) {
      long base = clock.millis() * 1000;
      LOG.warnf(
          "SEN-DB-012 PostgreSQL does not answer (%s) and the journal's folder is new: numbering"
              + " starts at %d, and the audit chain starts anew (audit verify names the break)",
          e.getMessage(), base);
      return new Recovered(base, 0, AuditRecord.GENESIS, 0, 0, state);
    }
  }
}
