package io.sentinel.store;

import io.sentinel.audit.AuditRecord;
import io.sentinel.store.wal.Position;
import io.sentinel.store.wal.SegmentLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.Optional;
import java.util.Properties;
import org.jboss.logging.Logger;

/**
 * A takeover's first step on this machine's journal (docs/standby.md, "The log across takeovers").
 * With a standby, the log in PostgreSQL is written by whichever core holds the lock, each numbering
 * its rows on from where the log ended when its journal opened. A journal folder left by this
 * machine's previous tenure numbers on from its own end: when another core has written since, its
 * rows would take sequence numbers already used (a row written twice is a no-op, so they would be
 * dropped without a word), its audit records would fork the chain, and the state it restores on top
 * of PostgreSQL's would be older than PostgreSQL's. So, holding the lock, before the journal opens:
 *
 * <ul>
 *   <li>nobody wrote after this folder's last feed: it goes on as it is ({@link Outcome#CONTINUES};
 *       what it holds unfed goes first);
 *   <li>another core wrote since and the folder holds nothing unfed: its end moves to PostgreSQL's
 *       ({@link Outcome#FOLLOWS_DATABASE});
 *   <li>another core wrote since and the folder holds records PostgreSQL never took (this core was
 *       killed with rows in flight): the folder is set aside whole, beside it, and said ({@link
 *       Outcome#SET_ASIDE}); its records are not fed, their numbers being taken.
 * </ul>
 */
public final class JournalHandover {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** What became of the folder. */
  public enum Outcome {
    CONTINUES,
    FOLLOWS_DATABASE,
    SET_ASIDE
  }

  private JournalHandover() {}

  /**
   * Makes {@code dir} (the journal's folder, {@code segmentBytes} its segment size) continue the
   * log PostgreSQL at {@code db} holds. Call it with the core lock held, before the journal opens.
   */
  public static Outcome prepare(Path dir, long segmentBytes, DbUrl db, InstantSource clock)
      throws IOException, SQLException {
    if (!Files.isDirectory(dir)) {
      return Outcome.CONTINUES; // a new folder starts from PostgreSQL's end (Journal.open)
    }
    Optional<FedState> fed = FedState.read(dir);
    Recovered local;
    Position end;
    try (SegmentLog log = SegmentLog.open(dir, segmentBytes)) {
      Position from = fed.map(FedState::position).orElse(log.first());
      local = Recovered.scan(log, from.before(log.first()) ? log.first() : from, fed);
      end = log.end();
    }
    if (fed.isEmpty() && local.records() == 0) {
      return Outcome.CONTINUES;
    }
    Recovered database = endOf(db);
    // Another core's rows are numbered from where the log ended at its start, which was at least
    // this folder's last feed: it wrote iff PostgreSQL holds a number this folder would reuse.
    boolean overtaken =
        local.records() == 0
            ? database.lastSeq() > fed.orElseThrow().lastSeq()
            : database.lastSeq() >= local.firstSeq();
    if (!overtaken) {
      return Outcome.CONTINUES;
    }
    if (local.records() == 0) {
      new FedState(end, database.lastSeq(), database.auditSeq(), database.auditHead()).save(dir);
      LOG.infof(
          "SEN-185 another core wrote the log since this journal's last tenure (PostgreSQL ends at"
              + " seq %d, the journal at %d): its numbering continues from PostgreSQL's end",
          database.lastSeq(), fed.orElseThrow().lastSeq());
      return Outcome.FOLLOWS_DATABASE;
    }
    Path aside =
        dir.resolveSibling(
            dir.getFileName()
                + ".set-aside-"
                + clock.instant().toString().replace(':', '-').replace('.', '-'));
    Files.move(dir, aside);
    LOG.warnf(
        "SEN-186 the journal holds %d records PostgreSQL never took (seq %d to %d) from this core's"
            + " last tenure, and another core has written the log since (up to seq %d): their"
            + " numbers are taken, so they are not fed; the folder is kept as %s",
        local.records(), local.firstSeq(), local.lastSeq(), database.lastSeq(), aside);
    return Outcome.SET_ASIDE;
  }

  /** Where the log in PostgreSQL ends (sequence, audit chain), over a connection of its own. */
  private static Recovered endOf(DbUrl db) throws SQLException {
    Properties p = db.jdbcProperties("sentinel-journal-handover");
    p.setProperty("connectTimeout", "5");
    p.setProperty("socketTimeout", "10");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), p);
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(LogEnd.QUERY)) {
      r.next();
      long last = r.getLong("last");
      long auditSeq = r.getLong("audit_seq");
      String head = r.getString("audit_head");
      return new Recovered(
          last,
          auditSeq,
          head == null ? AuditRecord.GENESIS : head,
          0,
          0,
          java.util.List.of(),
          java.util.List.of());
    }
  }
}
