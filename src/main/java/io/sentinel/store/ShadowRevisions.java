package io.sentinel.store;

import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Shadow revisions in {@code ruleset_shadow} (migration V11, docs/shadow.md): the one running per
 * site, kept so that a restart runs it again, and how each one ended (promoted, superseded by an
 * active revision at or above its number, replaced by a newer shadow, dropped at a start).
 */
public final class ShadowRevisions {
  private final Pool pool;
  private final RowWriter db;

  public ShadowRevisions(Pool pool, Duration timeout) {
    this.pool = pool;
    this.db = new RowWriter(pool, timeout);
  }

  /** The shadow revision running, as it was received. */
  public record Stored(
      long revision,
      String contentHash,
      String promotedHash,
      String document,
      Optional<String> signer,
      Optional<String> reviewer,
      Instant receivedAt) {}

  /** Records {@code s} as the site's running shadow; the one running before ends as replaced. */
  public void recordRunning(String site, Stored s, long activeRevision)
      throws RowWriter.WriteFailed {
    db.await(
        pool.withTransaction(
            c ->
                c.preparedQuery(
                        "UPDATE ruleset_shadow SET state = 'replaced', ended_at ="
                            + " $2::text::timestamptz, ended_by = $3 WHERE site = $1 AND state ="
                            + " 'running'")
                    .execute(Tuple.of(site, s.receivedAt().toString(), s.revision()))
                    .compose(
                        v ->
                            c.preparedQuery(
                                    "INSERT INTO ruleset_shadow (revision, site, content_hash,"
                                        + " promoted_hash, document, signer, reviewer,"
                                        + " active_revision, state, received_at) VALUES ($1, $2,"
                                        + " $3, $4, $5, $6, $7, $8, 'running',"
                                        + " $9::text::timestamptz)")
                                .execute(
                                    Tuple.of(
                                            s.revision(),
                                            site,
                                            s.contentHash(),
                                            s.promotedHash(),
                                            s.document(),
                                            s.signer().orElse(null))
                                        .addValue(s.reviewer().orElse(null))
                                        .addValue(activeRevision)
                                        .addValue(s.receivedAt().toString())))));
  }

  /**
   * The running shadow of {@code site} ends: {@code state} promoted, superseded or dropped; {@code
   * by} the revision that ended it (0 for none).
   */
  public void end(String site, long revision, String state, long by, Instant at)
      throws RowWriter.WriteFailed {
    db.await(
        pool.preparedQuery(
                "UPDATE ruleset_shadow SET state = $3, ended_at = $4::text::timestamptz, ended_by ="
                    + " $5 WHERE site = $1 AND revision = $2 AND state = 'running'")
            .execute(Tuple.of(site, revision, state, at.toString(), by == 0 ? null : by)));
  }

  /** The shadow revision running for {@code site}, if any. */
  public Optional<Stored> running(String site) throws RowWriter.WriteFailed {
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT revision, content_hash, promoted_hash, document, signer, reviewer,"
                        + " (extract(epoch FROM received_at) * 1000)::bigint AS received_ms FROM ruleset_shadow WHERE site = $1 AND"
                        + " state = 'running'")
                .execute(Tuple.of(site)))) {
      return Optional.of(
          new Stored(
              r.getLong("revision"),
              r.getString("content_hash"),
              r.getString("promoted_hash"),
              r.getString("document"),
              Optional.ofNullable(r.getString("signer")),
              Optional.ofNullable(r.getString("reviewer")),
              Instant.ofEpochMilli(r.getLong("received_ms"))));
    }
    return Optional.empty();
  }
}
