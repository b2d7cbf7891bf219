package io.sentinel.store;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the operator's page reads from the log besides the engine's state: a point's trend,
 * downsampled in SQL ({@code date_bin}), the claim changes and commands of the same window, the
 * latest control events and audit records, the last rejected revision, and why each rule last left
 * active. Every query is bounded by its caller's limit; none is on the engine's thread.
 */
public final class Trends {
  /** The control events that say why a rule is not active, newest per rule. */
  private static final String RULE_REASONS =
      "'rule-suspended', 'rule-resumed', 'input-lost', 'inputs-restored', 'hold-expired',"
          + " 'warmup-left'";

  private final Pool pool;
  private final RowWriter db;

  Trends(Pool pool, RowWriter db) {
    this.pool = pool;
    this.db = db;
  }

  /**
   * One row per {@code step} in {@code [from, to)} that holds observations of {@code pointId}:
   * {@code {t, n, min, max, avg, last, quality}}. A boolean counts as 0 or 1; {@code last} is the
   * last value as sent (any type), {@code quality} the last quality.
   */
  public JsonArray buckets(String pointId, Instant from, Instant to, Duration step)
      throws RowWriter.WriteFailed {
    JsonArray out = new JsonArray();
    for (Row r :
        rows(
            "WITH o AS (SELECT received_at, seq, value, quality, COALESCE(value_num, CASE"
                + " WHEN jsonb_typeof(value) = 'boolean' THEN CASE WHEN value = 'true'"
                + " THEN 1.0 ELSE 0.0 END END) AS num FROM observations WHERE point_id"
                + " = $1 AND received_at >= $2::text::timestamptz AND received_at <"
                + " $3::text::timestamptz) SELECT date_bin(make_interval(secs => $4),"
                + " received_at, $2::text::timestamptz) AS t, count(*) AS n, min(num)"
                + " AS lo, max(num) AS hi, avg(num) AS mean, (array_agg(value::text"
                + " ORDER BY received_at DESC, seq DESC))[1] AS last, (array_agg(quality"
                + " ORDER BY received_at DESC, seq DESC))[1] AS quality FROM o GROUP BY"
                + " 1 ORDER BY 1",
            Tuple.of(pointId, from.toString(), to.toString(), step.toNanos() / 1_000_000_000.0))) {
      out.add(
          new JsonObject()
              .put("t", instant(r, "t"))
              .put("n", r.getLong("n"))
              .put("min", r.getDouble("lo"))
              .put("max", r.getDouble("hi"))
              .put("avg", r.getDouble("mean"))
              .put("last", io.vertx.core.json.Json.decodeValue(r.getString("last")))
              .put("quality", r.getString("quality")));
    }
    return out;
  }

  /**
   * The claim changes on {@code pointId} and the commands sent to it in {@code [from, to)}, in time
   * order, at most {@code limit} of each: {@code {t, kind: "claim"|"command", ...}}.
   */
  public JsonArray marks(String pointId, Instant from, Instant to, int limit)
      throws RowWriter.WriteFailed {
    Tuple window = Tuple.of(pointId, from.toString(), to.toString(), limit);
    JsonArray out = new JsonArray();
    for (Row r :
        newestOnPoint(
            "at, rule_id, band, value::text AS v, reason", "claim_changes", "at", window)) {
      out.add(
          new JsonObject()
              .put("t", instant(r, "at"))
              .put("kind", "claim")
              .put("rule", r.getString("rule_id"))
              .put("band", r.getString("band"))
              .put("value", json(r.getString("v")))
              .put("reason", r.getString("reason")));
    }
    for (Row r :
        newestOnPoint(
            "issued_at, command_id, kind, value::text AS v, rule_id, state",
            "commands",
            "issued_at",
            window)) {
      out.add(
          new JsonObject()
              .put("t", instant(r, "issued_at"))
              .put("kind", "command")
              .put("command", r.getString("kind"))
              .put("id", r.getString("command_id"))
              .put("rule", r.getString("rule_id"))
              .put("value", json(r.getString("v")))
              .put("state", r.getString("state")));
    }
    java.util.List<JsonObject> sorted = new java.util.ArrayList<>();
    out.forEach(o -> sorted.add((JsonObject) o));
    sorted.sort(java.util.Comparator.comparing(o -> Instant.parse(o.getString("t"))));
    return new JsonArray(new java.util.ArrayList<>(sorted));
  }

  /** The newest control events, newest first: {@code {t, kind, subject, message}}. */
  public JsonArray events(int limit) throws RowWriter.WriteFailed {
    JsonArray out = new JsonArray();
    for (Row r :
        rows(
            "SELECT at, kind, subject, message FROM control_events ORDER BY seq DESC LIMIT" + " $1",
            Tuple.of(limit))) {
      out.add(event(r));
    }
    return out;
  }

  /** The newest audit records, newest first, in short: {@code {t, kind, rule, band, reason}}. */
  public JsonArray audit(int limit) throws RowWriter.WriteFailed {
    JsonArray out = new JsonArray();
    for (Row r :
        rows(
            "SELECT seq, at, kind, rule_id, band, reason, detail::text AS d FROM audit_log"
                + " ORDER BY seq DESC LIMIT $1",
            Tuple.of(limit))) {
      out.add(
          new JsonObject()
              .put("seq", r.getLong("seq"))
              .put("t", instant(r, "at"))
              .put("kind", r.getString("kind"))
              .put("rule", r.getString("rule_id"))
              .put("band", r.getString("band"))
              .put("reason", r.getString("reason"))
              .put("detail", json(r.getString("d"))));
    }
    return out;
  }

  /** The last revision refused (a push, or the site's files), with every problem, if any. */
  public Optional<JsonObject> lastRejected() throws RowWriter.WriteFailed {
    for (Row r :
        rows(
            "SELECT at, revision, source, reason, problems::text AS p FROM"
                + " ruleset_history WHERE outcome = 'rejected' ORDER BY at DESC LIMIT 1",
            Tuple.tuple())) {
      return Optional.of(
          new JsonObject()
              .put("t", instant(r, "at"))
              .put("revision", r.getLong("revision"))
              .put("source", r.getString("source"))
              .put("reason", r.getString("reason"))
              .put("problems", json(r.getString("p"))));
    }
    return Optional.empty();
  }

  /** Per rule, the newest event about its state (suspended, input lost, ...). */
  public Map<String, JsonObject> ruleReasons() throws RowWriter.WriteFailed {
    Map<String, JsonObject> out = new LinkedHashMap<>();
    for (Row r :
        rows(
            "SELECT DISTINCT ON (subject) at, kind, subject, message FROM control_events"
                + " WHERE kind IN ("
                + RULE_REASONS
                + ") ORDER BY subject, seq DESC",
            Tuple.tuple())) {
      out.put(r.getString("subject"), event(r));
    }
    return out;
  }

  /** The rows {@code sql} selects with {@code args}, waited for as every log read is. */
  private RowSet<Row> rows(String sql, Tuple args) throws RowWriter.WriteFailed {
    return db.await(pool.preparedQuery(sql).execute(args));
  }

  /**
   * The newest rows of {@code table} on one point whose {@code at} column lies in a window: {@code
   * window} is (point id, from, to, limit).
   */
  private RowSet<Row> newestOnPoint(String columns, String table, String at, Tuple window)
      throws RowWriter.WriteFailed {
    return rows(
        "SELECT "
            + columns
            + " FROM "
            + table
            + " WHERE point_id = $1 AND "
            + at
            + " >= $2::text::timestamptz AND "
            + at
            + " < $3::text::timestamptz ORDER BY seq DESC LIMIT $4",
        window);
  }

  private static JsonObject event(Row r) {
    return new JsonObject()
        .put("t", instant(r, "at"))
        .put("kind", r.getString("kind"))
        .put("subject", r.getString("subject"))
        .put("message", r.getString("message"));
  }

  private static String instant(Row r, String column) {
    OffsetDateTime t = r.getOffsetDateTime(column);
    return t == null ? null : t.toInstant().toString();
  }

  private static Object json(String text) {
    return text == null ? null : io.vertx.core.json.Json.decodeValue(text);
  }
}
