package io.sentinel.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes a batch of rows in one transaction through the reactive client: one INSERT per table, each
 * column bound as a text array and unnested, so a thousand observations are one statement. Called
 * from the journal's own thread, which waits for the outcome (never an event-loop thread).
 */
final class RowWriter {
  private final Pool pool;
  private final Duration timeout;

  RowWriter(Pool pool, Duration timeout) {
    this.pool = pool;
    this.timeout = timeout;
  }

  void write(List<Row> rows) throws WriteFailed {
    if (rows.isEmpty()) {
      return;
    }
    Map<Table, List<Row>> byTable = new EnumMap<>(Table.class);
    for (Row r : rows) {
      byTable.computeIfAbsent(r.table(), t -> new ArrayList<>()).add(r);
    }
    // A table of latest values takes one row per key per statement: the newest.
    byTable.replaceAll(
        (t, list) -> {
          if (t.upsertKey.isEmpty()) {
            return list;
          }
          Map<String, Row> newest = new LinkedHashMap<>();
          list.forEach(r -> newest.merge(r.key(), r, (a, b) -> b.seq() >= a.seq() ? b : a));
          return new ArrayList<>(newest.values());
        });
    Future<Void> done = pool.withTransaction(conn -> insertAll(conn, byTable));
    await(done);
  }

  private static Future<Void> insertAll(SqlConnection conn, Map<Table, List<Row>> byTable) {
    Future<Void> chain = Future.succeededFuture();
    for (Map.Entry<Table, List<Row>> e : byTable.entrySet()) {
      Table t = e.getKey();
      List<Row> list = e.getValue();
      chain =
          chain.compose(
              v -> conn.preparedQuery(t.insert).execute(arrays(t, list)).<Void>mapEmpty());
    }
    return chain;
  }

  private static Tuple arrays(Table t, List<Row> rows) {
    Tuple tuple = Tuple.tuple();
    for (int c = 0; c < t.columns.size(); c++) {
      String[] column = new String[rows.size()];
      for (int i = 0; i < rows.size(); i++) {
        column[i] = rows.get(i).values().get(c);
      }
      tuple.addArrayOfString(column);
    }
    return tuple;
  }

  <T> T await(Future<T> f) throws WriteFailed {
    try {
      return f.toCompletionStage()
          .toCompletableFuture()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new WriteFailed("no answer from PostgreSQL within " + timeout, e);
    } catch (ExecutionException e) {
      throw new WriteFailed(String.valueOf(e.getCause().getMessage()), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WriteFailed("interrupted", e);
    }
  }

  /** PostgreSQL did not take the batch (down, slow, or it refused it). */
  static final class WriteFailed extends Exception {
    WriteFailed(String message, Throwable cause) {
      super(message, cause);
    }

    /**
     * PostgreSQL answered and refused what it was given (SQLSTATE class 22 data exception, 23
     * integrity violation, 54 program limit): a row's fault, not the server's absence. Anything
     * else (no connection, a timeout, a missing table) is retried as it is.
     */
    boolean refused() {
      return state()
          .map(c -> c.startsWith("22") || c.startsWith("23") || c.startsWith("54"))
          .orElse(false);
    }

    /**
     * PostgreSQL answered, with an error that is not its going away: an error of SQLSTATE class 08
     * (connection exception) or 57 (operator intervention: a shutdown, {@code 57P01} to every
     * session as it stops, a server not yet accepting) says it is away, as a refused connection
     * does.
     */
    boolean answered() {
      return getCause() instanceof io.vertx.sqlclient.DatabaseException
          && state().map(c -> !c.startsWith("08") && !c.startsWith("57")).orElse(true);
    }

    private Optional<String> state() {
      return getCause() instanceof io.vertx.sqlclient.DatabaseException d
          ? Optional.ofNullable(d.getSqlState())
          : Optional.empty();
    }
  }
}
