package io.sentinel.store;

import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RestartState;
import io.sentinel.point.Value;
import io.sentinel.wire.PassLogJson;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads what a restart takes back ({@link RestartState}, defined in the core) from the log: the
 * points' last values, the newest derived snapshot with its latches and overrides, and the actions'
 * last firings.
 */
public final class RestartReader {
  private RestartReader() {}

  public static RestartState load(Pool pool, Duration timeout) throws RowWriter.WriteFailed {
    RowWriter db = new RowWriter(pool, timeout);
    List<RestartState.PointValue> values = new ArrayList<>();
    for (Row r :
        db.await(
            pool.query("SELECT point_id, value::text AS v, since FROM point_values").execute())) {
      Value v = PassLogJson.value(parse(r.getString("v"))).orElse(Value.ABSENT);
      values.add(
          new RestartState.PointValue(
              r.getString("point_id"), v, instant(r.getOffsetDateTime("since"))));
    }
    Optional<String> snapshot = Optional.empty();
    Set<String> latched = new TreeSet<>();
    List<OperatorOverride> overrides = new ArrayList<>();
    for (Row r :
        db.await(
            pool.query(
                    "SELECT snapshot::text AS s, latches::text AS l, overrides::text AS o"
                        + " FROM derived_snapshots ORDER BY seq DESC LIMIT 1")
                .execute())) {
      snapshot = Optional.of(r.getString("s"));
      parse(r.getString("l")).forEach(id -> latched.add(id.asText()));
      parse(r.getString("o")).forEach(o -> overrides.add(override(o)));
    }
    List<RestartState.Cooldown> cooldowns = new ArrayList<>();
    for (Row r :
        db.await(
            pool.query("SELECT rule_id, action_index, last_fired_at FROM action_cooldowns")
                .execute())) {
      cooldowns.add(
          new RestartState.Cooldown(
              r.getString("rule_id"),
              r.getInteger("action_index"),
              instant(r.getOffsetDateTime("last_fired_at"))));
    }
    return new RestartState(values, snapshot, latched, overrides, cooldowns);
  }

  /** One element of {@code derived_snapshots.overrides} (see {@code Rows.derivedSnapshot}). */
  private static OperatorOverride override(com.fasterxml.jackson.databind.JsonNode o) {
    return new OperatorOverride(
        o.path("point").asText(),
        PassLogJson.value(o.get("value")).orElse(Value.ABSENT),
        Instant.parse(o.path("until").asText()),
        o.path("by").asText(),
        o.path("reason").asText());
  }

  private static com.fasterxml.jackson.databind.JsonNode parse(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("point_values holds no JSON: " + json, e);
    }
  }

  private static Instant instant(OffsetDateTime t) {
    return t.toInstant();
  }
}
