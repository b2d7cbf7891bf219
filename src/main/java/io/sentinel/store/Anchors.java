package io.sentinel.store;

import io.sentinel.audit.AuditAnchor;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.Optional;

/** The audit chain's head, and the signed anchors of it ({@code audit_anchors}, migration V5). */
public final class Anchors {
  private final Pool pool;
  private final RowWriter db;

  public Anchors(Pool pool, Duration timeout) {
    this.pool = pool;
    this.db = new RowWriter(pool, timeout);
  }

  /** The last durable audit record: {seq, hash}; empty while the log has none. */
  public record Head(long seq, String hash) {}

  public Optional<Head> head() throws RowWriter.WriteFailed {
    for (Row r :
        db.await(
            pool.query("SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1").execute())) {
      return Optional.of(new Head(r.getLong("seq"), r.getString("hash")));
    }
    return Optional.empty();
  }

  public void record(AuditAnchor a) throws RowWriter.WriteFailed {
    db.await(
        pool.preparedQuery(
                "INSERT INTO audit_anchors (site, seq, hash, ts, public_key, signature, anchor)"
                    + " VALUES ($1, $2, $3, $4::text::timestamptz, $5, $6, $7)")
            .execute(
                Tuple.from(
                    new Object[] {
                      a.site(),
                      a.seq(),
                      a.hash(),
                      a.ts().toString(),
                      a.publicKey(),
                      a.signature(),
                      a.json()
                    })));
  }

  /** The newest anchor (highest seq, then latest), as published. */
  public Optional<AuditAnchor> latest() throws RowWriter.WriteFailed {
    for (Row r :
        db.await(
            pool.query("SELECT anchor FROM audit_anchors ORDER BY seq DESC, id DESC LIMIT 1")
                .execute())) {
      return Optional.of(AuditAnchor.parse(r.getString("anchor")));
    }
    return Optional.empty();
  }
}
