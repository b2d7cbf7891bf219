package io.sentinel.store;

import io.sentinel.audit.AuditVerifier;
import io.sentinel.passlog.ClaimRecord;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.wire.PassLogJson;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/** Reads the log back: a window of observations and commands (replay), the audit log (export). */
public final class History {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private final Pool pool;
  private final RowWriter db;
  private final Duration timeout;

  public History(Pool pool, Duration timeout) {
    this.pool = pool;
    this.timeout = timeout;
    this.db = new RowWriter(pool, timeout);
  }

  /**
   * The observations received in {@code [feedFrom, to]} and the commands decided in {@code [from,
   * to]}, as an exported window would hold them.
   */
  public LogWindow window(String site, Instant feedFrom, Instant from, Instant to)
      throws RowWriter.WriteFailed {
    List<LoggedObservation> observations = new ArrayList<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT seq, point_id, value::text AS v, quality, source, observed_at,"
                        + " received_at FROM observations WHERE received_at >= $1::text::timestamptz AND"
                        + " received_at <= $2::text::timestamptz ORDER BY received_at, seq")
                .execute(Tuple.of(feedFrom.toString(), to.toString())))) {
      observations.add(
          new LoggedObservation(
              r.getLong("seq"),
              new Observation(
                  r.getString("point_id"),
                  value(r.getString("v")),
                  Quality.parse(r.getString("quality")).orElse(Quality.BAD),
                  r.getString("source"),
                  Optional.ofNullable(r.getOffsetDateTime("observed_at"))
                      .map(OffsetDateTime::toInstant),
                  r.getOffsetDateTime("received_at").toInstant())));
    }
    List<CommandIntent> commands = new ArrayList<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT at, point_id, kind, value::text AS v, rule_id, band, NULL AS detail, seq"
                        + " FROM decisions WHERE at >= $1::text::timestamptz AND at <= $2::text::timestamptz"
                        + " UNION ALL SELECT at, fields->>'point', 'pulse', 'true', rule_id, NULL,"
                        + " fields->>'duration', seq FROM actions WHERE kind = 'pulse' AND"
                        + " at >= $1::text::timestamptz AND at <= $2::text::timestamptz"
                        + " UNION ALL SELECT at, fields->>'point', 'fade', fields->>'value', rule_id,"
                        + " NULL, fields->>'over', seq FROM actions WHERE kind = 'fade' AND"
                        + " at >= $1::text::timestamptz AND at <= $2::text::timestamptz ORDER BY at, seq")
                .execute(Tuple.of(from.toString(), to.toString())))) {
      commands.add(
          new CommandIntent(
              r.getOffsetDateTime("at").toInstant(),
              r.getString("point_id"),
              CommandIntent.Kind.parse(r.getString("kind")).orElseThrow(),
              value(r.getString("v")),
              Optional.ofNullable(r.getString("rule_id")),
              Optional.ofNullable(r.getString("band")).flatMap(Band::parse),
              Optional.ofNullable(r.getString("detail")).orElse("")));
    }
    List<ClaimRecord> claims = new ArrayList<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT at, rule_id, point_id, band, value::text AS v, reason FROM"
                        + " claim_changes WHERE at >= $1::text::timestamptz AND"
                        + " at <= $2::text::timestamptz ORDER BY at, seq")
                .execute(Tuple.of(from.toString(), to.toString())))) {
      claims.add(
          new ClaimRecord(
              r.getOffsetDateTime("at").toInstant(),
              r.getString("rule_id"),
              r.getString("point_id"),
              Band.parse(r.getString("band")).orElseThrow(),
              Optional.ofNullable(r.getString("v")).map(History::value),
              r.getString("reason")));
    }
    return new LogWindow(
        Optional.of(site),
        Optional.of(from),
        Optional.of(to),
        observations,
        commands,
        claims,
        Optional.of(new Timelines(pool, db, timeout).read(feedFrom, to)));
  }

  /** Where a replay of {@code [from, to]} begins: the last start recorded at or before it. */
  public Optional<Instant> lastStart(Instant from) throws RowWriter.WriteFailed {
    return new Timelines(pool, db, timeout).lastStart(from);
  }

  /**
   * Pulse commands carry their rule's band in the log only through the rule set: replay fills it
   * from the rules, so the history side is given the same band here.
   */
  public static List<CommandIntent> withBands(
      List<CommandIntent> commands, CommandIntent.Bands bands) {
    return commands.stream()
        .map(
            c ->
                c.band().isPresent() || c.ruleId().isEmpty()
                    ? c
                    : new CommandIntent(
                        c.at(),
                        c.pointId(),
                        c.kind(),
                        c.value(),
                        c.ruleId(),
                        bands.of(c.ruleId().get()),
                        c.detail()))
        .toList();
  }

  /** Why {@code pointId} was in its state at {@code at}, from the log (docs/api.md). */
  public io.sentinel.passlog.Explanation why(String pointId, Instant at)
      throws RowWriter.WriteFailed {
    return new Explanations(pool, timeout).at(pointId, at);
  }

  /** The operator page's reads: trends, latest events and audit records, rule reasons. */
  public Trends trends() {
    return new Trends(pool, db);
  }

  /** Every audit record in chain order, as canonical NDJSON lines with their seq. */
  public void audit(Consumer<AuditLine> each) throws RowWriter.WriteFailed {
    audit(AuditPage.ALL, each);
  }

  /**
   * A page of the audit log: records with {@code seq} after {@code page.afterSeq()} whose engine
   * instant lies in {@code [from, to)}, in chain order, at most {@code page.limit()}.
   *
   * @return how many records were handed over
   */
  public long audit(AuditPage page, Consumer<AuditLine> each) throws RowWriter.WriteFailed {
    long after = page.afterSeq();
    long left = page.limit();
    String from = page.from().map(Instant::toString).orElse("-infinity");
    String to = page.to().map(Instant::toString).orElse("infinity");
    long total = 0;
    while (left > 0) {
      int n = 0;
      for (Row r :
          db.await(
              pool.preparedQuery(
                      "SELECT seq, event_id, kind, rule_id, revision, matched_inputs::text AS mi,"
                          + " resolved_outputs::text AS ro, band, priority, deciding_key,"
                          + " contenders::text AS co, device_id, zone, cycle, ts, reason,"
                          + " detail::text AS de, previous_hash, hash FROM audit_log WHERE seq > $1"
                          + " AND at >= $2::text::timestamptz AND at < $3::text::timestamptz"
                          + " ORDER BY seq LIMIT $4")
                  .execute(Tuple.of(after, from, to, (int) Math.min(left, 5000))))) {
        n++;
        after = r.getLong("seq");
        each.accept(new AuditLine(after, line(r)));
      }
      if (n == 0) {
        break;
      }
      left -= n;
      total += n;
    }
    return total;
  }

  /**
   * The whole audit log checked link by link as it is read ({@link AuditVerifier}), stopping at the
   * first broken link.
   */
  public AuditVerifier.Verdict verifyAudit() throws RowWriter.WriteFailed {
    AuditVerifier.Walk walk = new AuditVerifier.Walk();
    long[] row = {0};
    audit(line -> walk.accept(new AuditVerifier.Item("audit_log row " + ++row[0], line.text())));
    return walk.verdict();
  }

  /**
   * Which audit records to read: engine instants in {@code [from, to)} (either open), after the
   * record {@code afterSeq} (0: from the first), at most {@code limit}.
   */
  public record AuditPage(Optional<Instant> from, Optional<Instant> to, long afterSeq, long limit) {
    public static final AuditPage ALL =
        new AuditPage(Optional.empty(), Optional.empty(), 0, Long.MAX_VALUE);
  }

  public record AuditLine(long seq, String text) {}

  private static String line(Row r) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("seq", r.getLong("seq"));
    m.put("event_id", r.getString("event_id"));
    m.put("kind", r.getString("kind"));
    m.put("rule_id", r.getString("rule_id"));
    m.put("revision", r.getLong("revision"));
    m.put("matched_inputs", tree(r.getString("mi")));
    m.put("resolved_outputs", tree(r.getString("ro")));
    m.put("band", r.getString("band"));
    m.put("priority", r.getInteger("priority"));
    m.put("deciding_key", r.getString("deciding_key"));
    m.put("contenders", tree(r.getString("co")));
    m.put("device_id", r.getString("device_id"));
    m.put("zone", r.getString("zone"));
    m.put("cycle", r.getLong("cycle"));
    m.put("ts", r.getString("ts"));
    m.put("reason", r.getString("reason"));
    m.put("detail", tree(r.getString("de")));
    m.put("previous_hash", r.getString("previous_hash"));
    m.put("hash", r.getString("hash"));
    return io.sentinel.audit.CanonicalJson.textOf(m);
  }

  private static Object tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("audit_log holds no JSON: " + json, e);
    }
  }

  static Value value(String json) {
    return PassLogJson.value((com.fasterxml.jackson.databind.JsonNode) tree(json))
        .orElse(Value.ABSENT);
  }
}
