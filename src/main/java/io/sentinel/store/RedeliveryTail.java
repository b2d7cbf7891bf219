package io.sentinel.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.point.Value;
import io.sentinel.wire.PassLogJson;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * What the broker can deliver again after a crash (docs/live.md, "Messages delivered again after a
 * crash"): the MQTT samples logged after the last journaled acknowledgement mark ({@code
 * ingest_acknowledged}, migration V13), from PostgreSQL and from the journal's records it has not
 * taken yet, in the log's order. Each sample is reduced to the key a delivered sample is matched
 * by: its source (the topic), point, value and device time. The quality is left out: a sample
 * delivered again may arrive stale (its device time aged) where it was live.
 */
public final class RedeliveryTail {
  private static final Logger LOG = Logger.getLogger(RedeliveryTail.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The ingest whose acknowledgements the mark follows (the table's key). */
  static final String MQTT = "mqtt";

  /**
   * The row a clean stop journals once the MQTT client disconnected after its last PUBACK, {@code
   * through} its own seq: nothing logged before it is delivered again. A crash leaves the mark
   * alone, which says only that the PUBACKs were handed to the client.
   */
  static final String STOPPED = "mqtt:stopped";

  /**
   * At most this many samples after the mark are kept, the oldest: the broker delivers again from
   * the oldest message it holds unacknowledged, right after the mark (one receive window and the
   * sync the mark lags, a few hundred samples at 5,000/s; more only while acknowledgements stall at
   * the journal's bound, and then the first this many are told apart).
   */
  public static final int MAX = 20_000;

  /**
   * And this many at or before the mark: the mark says the PUBACKs were handed to the MQTT client,
   * not that they left the process before it was killed (GatewayCrashIT at a load average of 27:
   * 445 samples before the mark were delivered again).
   */
  static final int BEFORE = 5_000;

  /**
   * The mark ({@code -1}: none journaled yet, then nothing is matched) and the samples after it.
   */
  public record Tail(long mark, List<String> keys) {
    public static final Tail NONE = new Tail(-1, List.of());
  }

  private RedeliveryTail() {}

  /**
   * The row that journals the mark: every MQTT message in passes up to {@code through} is acked.
   */
  static Row mark(long seq, long through, Instant at) {
    return Rows.row(Table.INGEST_ACKNOWLEDGED, seq, MQTT, Long.toString(through), Rows.text(at));
  }

  /** The row that journals a clean stop ({@link #STOPPED}). */
  static Row stopped(long seq, Instant at) {
    return Rows.row(Table.INGEST_ACKNOWLEDGED, seq, STOPPED, Long.toString(seq), Rows.text(at));
  }

  /** Whether a row of the journal is an MQTT sample (a candidate for the tail). */
  static boolean mqttSample(Row r) {
    return r.table() == Table.OBSERVATIONS && r.value("source").startsWith("mqtt:");
  }

  /**
   * Keeps, while the journal's unfed records are read in order, the MQTT samples a start matches
   * against: the first {@link #MAX} after the latest mark and the last {@link #BEFORE} at or before
   * it. Each row is moved once: linear in the records read.
   */
  static final class Collector {
    private final java.util.ArrayDeque<Row> before = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<Row> after = new java.util.ArrayDeque<>();

    void add(Row r) {
      long through = through(r);
      if (through >= 0) {
        while (!after.isEmpty() && after.peekFirst().seq() <= through) {
          before.addLast(after.removeFirst());
          if (before.size() > BEFORE) {
            before.removeFirst();
          }
        }
      } else if (mqttSample(r) && after.size() < MAX) {
        after.addLast(r);
      }
    }

    List<Row> rows() {
      List<Row> all = new ArrayList<>(before);
      all.addAll(after);
      return List.copyOf(all);
    }
  }

  /** The mark a journal row carries, or -1. */
  static long through(Row r) {
    return through(r, MQTT);
  }

  /**
   * The {@code through} of a journal row of {@code source} ({@link #MQTT}, {@link #STOPPED}), or
   * -1.
   */
  private static long through(Row r, String source) {
    return r.table() == Table.INGEST_ACKNOWLEDGED && r.value("source").equals(source)
        ? Long.parseLong(r.value("through"))
        : -1;
  }

  /** The key a sample is matched by; the same for a logged sample and a delivered one. */
  public static String key(
      String source, String pointId, Value value, Optional<Instant> deviceTime) {
    return source
        + '\u0000'
        + pointId
        + '\u0000'
        + PassLogJson.valueNode(value)
        + '\u0000'
        // PostgreSQL keeps microseconds, rounded to the nearest (a tie, one in a thousand
        // nanosecond values, may round the other way: that sample is then taken as new).
        + deviceTime
            .map(t -> t.plusNanos(500).truncatedTo(ChronoUnit.MICROS).toString())
            .orElse("");
  }

  /**
   * Reads the tail: the mark from the journal's unfed state and from PostgreSQL (when it answers),
   * the samples after it (and {@link #BEFORE} at or before it) from both. PostgreSQL failing to
   * answer here costs only its part, said.
   */
  static Tail read(
      Pool pool, boolean postgres, List<Row> unfedState, List<Row> unfedTail, Duration timeout) {
    long mark = -1;
    long stopped = -1;
    for (Row r : unfedState) {
      mark = Math.max(mark, through(r));
      stopped = Math.max(stopped, through(r, STOPPED));
    }
    TreeMap<Long, String> bySeq = new TreeMap<>();
    if (postgres) {
      RowWriter db = new RowWriter(pool, timeout);
      try {
        for (var r :
            db.await(
                pool.preparedQuery(
                        "SELECT source, through FROM ingest_acknowledged WHERE source IN ($1, $2)")
                    .execute(Tuple.of(MQTT, STOPPED)))) {
          if (MQTT.equals(r.getString("source"))) {
            mark = Math.max(mark, r.getLong("through"));
          } else {
            stopped = Math.max(stopped, r.getLong("through"));
          }
        }
        if (mark >= 0) {
          // Only what candidates() keeps: after a clean stop nothing at or before it, so a start
          // reads no rows there instead of 25,000 it would drop (70-90 ms of a start on a
          // database of 2 million samples: docs/deployment.md).
          for (var r :
              db.await(
                  pool.preparedQuery(
                          "(SELECT seq, source, point_id, value::text AS v, observed_at FROM"
                              + " observations WHERE seq > $1 AND source LIKE 'mqtt:%' ORDER BY"
                              + " seq LIMIT $2) UNION ALL (SELECT seq, source, point_id, value::text"
                              + " AS v, observed_at FROM observations WHERE seq <= $3 AND seq > $4"
                              + " AND source LIKE 'mqtt:%' ORDER BY seq DESC LIMIT $5)")
                      .execute(Tuple.of(Math.max(mark, stopped), MAX, mark, stopped, BEFORE)))) {
            var observed = r.getOffsetDateTime("observed_at");
            bySeq.put(
                r.getLong("seq"),
                key(
                    r.getString("source"),
                    r.getString("point_id"),
                    value(r.getString("v")),
                    Optional.ofNullable(observed).map(java.time.OffsetDateTime::toInstant)));
          }
        }
      } catch (RowWriter.WriteFailed e) {
        LOG.warnf(
            "SEN-DB-070 the samples logged after the last acknowledgement could not be read from"
                + " PostgreSQL (%s): messages the broker delivers again are matched against the"
                + " local journal's alone",
            e.getMessage());
      }
    }
    if (mark < 0) {
      return Tail.NONE;
    }
    for (Row r : unfedTail) {
      String observed = r.value("observed_at");
      bySeq.put(
          r.seq(),
          key(
              r.value("source"),
              r.value("point_id"),
              value(r.value("value")),
              Optional.ofNullable(observed).map(Instant::parse)));
    }
    return new Tail(mark, candidates(bySeq, mark, stopped));
  }

  /**
   * The keys a start matches against, in the log's order: the last {@link #BEFORE} at or before the
   * mark and the first {@link #MAX} after it, less every sample logged before a clean stop ({@code
   * stopped}, -1: none). A crash can leave the mark past every sample logged (the PUBACKs handed to
   * the client, not yet sent): those are still delivered again. After a clean stop nothing is
   * matched, so that a message queued while the gateway was down that repeats an older sample's
   * content is taken.
   */
  static List<String> candidates(TreeMap<Long, String> bySeq, long mark, long stopped) {
    List<String> before =
        stopped >= mark
            ? List.of()
            : new ArrayList<>(bySeq.subMap(stopped, false, mark, true).values());
    List<String> after = new ArrayList<>(bySeq.tailMap(Math.max(mark, stopped), false).values());
    List<String> keys =
        new ArrayList<>(before.subList(Math.max(0, before.size() - BEFORE), before.size()));
    keys.addAll(after.subList(0, Math.min(MAX, after.size())));
    return List.copyOf(keys);
  }

  private static Value value(String json) {
    try {
      return PassLogJson.value(JSON.readTree(json)).orElse(Value.ABSENT);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return Value.of(json); // never matches a delivered sample's JSON: only its own
    }
  }
}
