package io.sentinel.store;

import io.sentinel.audit.AuditRecord;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.RowSet;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Where PostgreSQL's log ends (its highest sequence number, the audit chain's seq and head), asked
 * when the journal's folder is new and cannot say itself.
 *
 * <p>A PostgreSQL that is <em>there</em> is waited for, up to a patience: a journal that gave up on
 * it would number from the clock (an epoch timestamp's size, 1.8e15 in 2026) and start the audit
 * chain anew while PostgreSQL holds the real end, so a slow first answer (a cold JVM's first
 * connection on a loaded machine, a server still starting: SQLSTATE 57P03) must not count as an
 * absence. A PostgreSQL that is not there (the connection refused, no route, an unknown host) is
 * not waited for: the gateway starts without it at once (issue 24).
 */
final class LogEnd {
  /** How long a PostgreSQL that accepts connections, or answers with an error, is waited for. */
  static final Duration PATIENCE = Duration.ofSeconds(15);

  /**
   * Where the log in PostgreSQL ends: {@code last} (the highest sequence number of the journal's
   * rows), {@code audit_seq} and {@code audit_head} (the audit chain's last record); nulls when
   * empty.
   */
  static final String QUERY =
      "SELECT greatest((SELECT max(seq) FROM observations),"
          + " (SELECT max(seq) FROM claim_changes), (SELECT max(seq) FROM decisions),"
          + " (SELECT max(seq) FROM actions), (SELECT max(seq) FROM firings),"
          + " (SELECT max(seq) FROM control_events), (SELECT max(seq) FROM commands),"
          + " (SELECT max(seq) FROM command_states),"
          + " (SELECT max(seq) FROM derived_snapshots)) AS last,"
          + " (SELECT max(seq) FROM audit_log) AS audit_seq,"
          + " (SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1) AS audit_head";

  /** PostgreSQL's end of the log. */
  record End(long lastSeq, long auditSeq, String auditHead) {}

  /** What the asking found: the end, or why there is none. */
  record Answer(Optional<End> end, String why) {}

  private LogEnd() {}

  /**
   * Migrates (once it works) and asks; waits for a PostgreSQL that is there up to {@code patience},
   * not at all for one that is not.
   */
  static Answer ask(Pool pool, Feeder.Migrator migrator, Duration patience) {
    return ask(pool, migrator, patience, QUERY, LogEnd::read);
  }

  /**
   * Whether PostgreSQL is there: it answers a trivial query within {@code patience} (a slow first
   * answer waited for, an absent server not at all).
   */
  static boolean there(Pool pool, Duration patience) {
    return ask(pool, () -> {}, patience, "SELECT 1", rows -> new End(0, 0, AuditRecord.GENESIS))
        .end()
        .isPresent();
  }

  private static Answer ask(
      Pool pool,
      Feeder.Migrator migrator,
      Duration patience,
      String query,
      java.util.function.Function<RowSet<io.vertx.sqlclient.Row>, End> reader) {
    long deadline = System.nanoTime() + patience.toNanos();
    boolean migrated = false;
    Future<RowSet<io.vertx.sqlclient.Row>> pending = null;
    String why = "no answer";
    while (true) {
      try {
        if (!migrated) {
          migrator.migrate();
          migrated = true;
        }
        if (pending == null) {
          pending = pool.query(query).execute();
        }
        long slice =
            Math.max(1, Math.min(TimeUnit.SECONDS.toNanos(1), deadline - System.nanoTime()));
        return new Answer(
            Optional.of(
                reader.apply(
                    pending
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(slice, TimeUnit.NANOSECONDS))),
            "");
      } catch (TimeoutException e) {
        // Slow, not absent: the same question is still under way.
        why = "no answer within " + patience;
      } catch (ExecutionException e) {
        pending = null;
        why = String.valueOf(e.getCause().getMessage());
        if (absent(e.getCause())) {
          return new Answer(Optional.empty(), why);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Answer(Optional.empty(), "interrupted");
      } catch (Exception e) {
        // The migration over JDBC: refused is an absence; anything else is asked again.
        why = String.valueOf(e.getMessage());
        if (absent(e)) {
          return new Answer(Optional.empty(), why);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      }
      if (System.nanoTime() >= deadline) {
        return new Answer(Optional.empty(), why);
      }
    }
  }

  /** Nothing is there to wait for: nothing listens, no route, no such host. */
  static boolean absent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  private static End read(RowSet<io.vertx.sqlclient.Row> rows) {
    io.vertx.sqlclient.Row r = rows.iterator().next();
    long last = r.getLong("last") == null ? 0 : r.getLong("last");
    if (r.getLong("audit_seq") == null) {
      return new End(last, 0, AuditRecord.GENESIS);
    }
    return new End(last, r.getLong("audit_seq"), r.getString("audit_head"));
  }
}
