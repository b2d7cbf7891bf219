package io.sentinel.store;

import io.sentinel.engine.OperatorOverride;
import io.sentinel.passlog.Timeline;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what happened to the engine in a window besides its observations ({@link Timeline}, for
 * replay; docs/replay.md): the starts ({@code control_events} of kind {@value #STARTED}), the
 * activations (the audit log's {@code revision} entries), the operators' overrides (their claim
 * changes) and the changes of ingest lag.
 */
public final class Timelines {
  /** The control event a gateway logs as its engine starts, before its first pass. */
  public static final String STARTED = "core-started";

  /** {@code revision 3: ...}: the start's message names the revision it runs. */
  private static final Pattern REVISION = Pattern.compile("^revision (\\d+)\\b");

  /** {@code ...: cold start at 2026-11-02T05:00:00Z, ...}: the engine's own start instant. */
  private static final Pattern COLD = Pattern.compile("cold start at (\\S+?),");

  /** {@code override by alice until 2026-11-02T07:00:00Z: pump service} (OperatorRequests). */
  private static final Pattern SET = Pattern.compile("^override by (.*) until (\\S+): (.*)$");

  private final Pool pool;
  private final RowWriter db;
  private final Duration timeout;

  Timelines(Pool pool, RowWriter db, Duration timeout) {
    this.pool = pool;
    this.db = db;
    this.timeout = timeout;
  }

  Optional<Instant> lastStart(Instant atOrBefore) throws RowWriter.WriteFailed {
    for (Row r :
        rows(
            "SELECT at FROM control_events WHERE kind = '"
                + STARTED
                + "' AND at <= $1::text::timestamptz ORDER BY at DESC, seq DESC LIMIT 1",
            Tuple.of(atOrBefore.toString()))) {
      return Optional.of(r.getOffsetDateTime("at").toInstant());
    }
    return Optional.empty();
  }

  /**
   * The timeline from {@code begin} to {@code to}: {@code begin} is a recorded start (the event is
   * logged at the start's first pass, naming the revision and the engine's start), or replay
   * assumes one there (with the revision active then, and what the log held then).
   */
  Timeline read(Instant begin, Instant to) throws RowWriter.WriteFailed {
    Tuple window = Tuple.of(begin.toString(), to.toString());
    List<Timeline.Start> starts = new ArrayList<>();
    for (Row r :
        rows(
            "SELECT at, message FROM control_events WHERE kind = '"
                + STARTED
                + "' AND at >= $1::text::timestamptz AND at <= $2::text::timestamptz ORDER BY seq",
            window)) {
      Instant at = r.getOffsetDateTime("at").toInstant();
      Matcher m = REVISION.matcher(r.getString("message"));
      long revision = m.find() ? Long.parseLong(m.group(1)) : revisionAt(at);
      Matcher cold = COLD.matcher(r.getString("message"));
      Instant engineStart = cold.find() ? Instant.parse(cold.group(1)) : at;
      Instant previous = starts.isEmpty() ? begin : starts.get(starts.size() - 1).at();
      starts.add(
          new Timeline.Start(
              engineStart,
              at,
              revision,
              RestartReader.asOf(pool, timeout, engineStart),
              true,
              lastOutcome(previous, engineStart)));
    }
    if (starts.isEmpty() || starts.get(0).at().isAfter(begin)) {
      starts.add(
          0,
          new Timeline.Start(
              begin,
              begin,
              revisionAt(begin),
              RestartReader.asOf(pool, timeout, begin),
              false,
              Optional.empty()));
    }
    List<Timeline.Activation> activations = new ArrayList<>();
    for (Row r :
        rows(
            "SELECT at, revision FROM audit_log WHERE kind = 'revision' AND"
                + " at > $1::text::timestamptz AND at <= $2::text::timestamptz ORDER BY seq",
            window)) {
      activations.add(
          new Timeline.Activation(r.getOffsetDateTime("at").toInstant(), r.getLong("revision")));
    }
    List<Timeline.OverrideRequest> overrides = new ArrayList<>();
    for (Row r :
        rows(
            "SELECT at, point_id, value::text AS v, reason FROM claim_changes WHERE rule_id = '"
                + OperatorOverride.RULE_ID
                + "' AND at >= $1::text::timestamptz AND at <= $2::text::timestamptz ORDER BY seq",
            window)) {
      Instant at = r.getOffsetDateTime("at").toInstant();
      String point = r.getString("point_id");
      String reason = r.getString("reason");
      Matcher set = SET.matcher(reason);
      if (r.getString("v") != null && set.matches()) {
        overrides.add(
            new Timeline.OverrideRequest(
                at,
                point,
                Optional.of(
                    new OperatorOverride(
                        point,
                        History.value(r.getString("v")),
                        Instant.parse(set.group(2)),
                        set.group(1),
                        set.group(3)))));
      } else if (reason.equals("override cleared")) {
        overrides.add(new Timeline.OverrideRequest(at, point, Optional.empty()));
      }
      // restored, expired, dropped: the engine does those itself
    }
    List<Timeline.LagChange> lag = new ArrayList<>();
    for (Row r :
        rows(
            "SELECT at, kind FROM control_events WHERE kind IN ('ingest-lagging',"
                + " 'ingest-caught-up') AND at >= $1::text::timestamptz AND"
                + " at <= $2::text::timestamptz ORDER BY seq",
            window)) {
      lag.add(
          new Timeline.LagChange(
              r.getOffsetDateTime("at").toInstant(), r.getString("kind").equals("ingest-lagging")));
    }
    return new Timeline(starts, activations, overrides, lag);
  }

  /**
   * The last instant in {@code [after, before)} at which the engine logged an outcome: how far the
   * run that stopped (or was killed) before a start got, timers included.
   */
  private Optional<Instant> lastOutcome(Instant after, Instant before)
      throws RowWriter.WriteFailed {
    String in = " >= $1::text::timestamptz AND %s < $2::text::timestamptz";
    String sql =
        "SELECT max(t) AS t FROM (SELECT max(at) AS t FROM claim_changes WHERE at"
            + in.formatted("at")
            + " UNION ALL SELECT max(at) FROM decisions WHERE at"
            + in.formatted("at")
            + " UNION ALL SELECT max(at) FROM actions WHERE at"
            + in.formatted("at")
            + " UNION ALL SELECT max(received_at) FROM observations WHERE received_at"
            + in.formatted("received_at")
            + ") x";
    for (Row r : rows(sql, Tuple.of(after.toString(), before.toString()))) {
      return Optional.ofNullable(r.getOffsetDateTime("t")).map(java.time.OffsetDateTime::toInstant);
    }
    return Optional.empty();
  }

  /** The revision active at {@code t} (0 when the log records none: the site's files). */
  private long revisionAt(Instant t) throws RowWriter.WriteFailed {
    for (Row r :
        rows(
            "SELECT revision FROM ruleset_revisions WHERE activated_at <= $1::text::timestamptz"
                + " ORDER BY activated_at DESC, revision DESC LIMIT 1",
            Tuple.of(t.toString()))) {
      return r.getLong("revision");
    }
    return 0;
  }

  private io.vertx.sqlclient.RowSet<Row> rows(String sql, Tuple args) throws RowWriter.WriteFailed {
    return db.await(pool.preparedQuery(sql).execute(args));
  }
}
