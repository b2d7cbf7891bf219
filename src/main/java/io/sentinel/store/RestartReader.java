package io.sentinel.store;

import io.sentinel.engine.ActionId;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RestartState;
import io.sentinel.point.Value;
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
            pool.query(
                    "SELECT rule_id, action_index, last_fired_at, action_id FROM action_cooldowns")
                .execute())) {
      cooldowns.add(
          new RestartState.Cooldown(
              r.getString("rule_id"),
              r.getInteger("action_index"),
              instant(r.getOffsetDateTime("last_fired_at")),
              ActionId.parse(r.getString("action_id")).map(ActionId::generation).orElse(0L)));
    }
    return new RestartState(values, snapshot, latched, overrides, cooldowns);
  }

  /**
   * What a start at {@code t} took back, as the log holds it before {@code t} (replay's cold
   * starts, docs/replay.md): each point's last observation, the newest derived snapshot taken at or
   * before {@code t} with its latches and overrides, and each action's last firing before {@code
   * t}.
   */
  public static RestartState asOf(Pool pool, Duration timeout, Instant t)
      throws RowWriter.WriteFailed {
    RowWriter db = new RowWriter(pool, timeout);
    Tuple at = Tuple.of(t.toString());
    List<RestartState.PointValue> values = new ArrayList<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT DISTINCT ON (point_id) point_id, value::text AS v, received_at FROM"
                        + " observations WHERE received_at < $1::text::timestamptz"
                        + " ORDER BY point_id, received_at DESC, seq DESC")
                .execute(at))) {
      values.add(
          new RestartState.PointValue(
              r.getString("point_id"),
              PassLogJson.value(parse(r.getString("v"))).orElse(Value.ABSENT),
              instant(r.getOffsetDateTime("received_at"))));
    }
    Optional<String> snapshot = Optional.empty();
    Set<String> latched = new TreeSet<>();
    List<OperatorOverride> overrides = new ArrayList<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT snapshot::text AS s, latches::text AS l, overrides::text AS o FROM"
                        + " derived_snapshots WHERE taken_at <= $1::text::timestamptz"
                        + " ORDER BY seq DESC LIMIT 1")
                .execute(at))) {
      snapshot = Optional.of(r.getString("s"));
      parse(r.getString("l")).forEach(id -> latched.add(id.asText()));
      parse(r.getString("o")).forEach(o -> overrides.add(override(o)));
    }
    java.util.Map<String, RestartState.Cooldown> byAction = new java.util.LinkedHashMap<>();
    for (Row r :
        db.await(
            pool.preparedQuery(
                    "SELECT rule_id, action_id, at FROM actions WHERE at < $1::text::timestamptz"
                        + " ORDER BY seq")
                .execute(at))) {
      Optional<ActionId> id = ActionId.parse(r.getString("action_id"));
      int index = id.map(ActionId::index).orElse(0);
      byAction.put(
          r.getString("rule_id") + "/" + index,
          new RestartState.Cooldown(
              r.getString("rule_id"),
              index,
              instant(r.getOffsetDateTime("at")),
              id.map(ActionId::generation).orElse(0L)));
    }
    return new RestartState(
        values, snapshot, latched, overrides, new ArrayList<>(byAction.values()));
  }

  /**
   * {@code base} with the journal's newer rows on top (point values and cooldowns by key, the
   * snapshot whole): the records PostgreSQL had not taken when the gateway stopped.
   */
  static RestartState overlaid(RestartState base, List<io.sentinel.store.Row> newer) {
    if (newer.isEmpty()) {
      return base;
    }
    java.util.Map<String, RestartState.PointValue> byPoint = new java.util.LinkedHashMap<>();
    base.values().forEach(v -> byPoint.put(v.pointId(), v));
    java.util.Map<String, RestartState.Cooldown> byAction = new java.util.LinkedHashMap<>();
    base.cooldowns().forEach(c -> byAction.put(c.ruleId() + "/" + c.actionIndex(), c));
    Optional<String> snapshot = base.derivedSnapshot();
    Set<String> latched = base.latchedRules();
    List<OperatorOverride> kept = base.overrides();
    for (io.sentinel.store.Row r : newer) {
      switch (r.table()) {
        case POINT_VALUES -> {
          Value v = PassLogJson.value(parse(r.value("value"))).orElse(Value.ABSENT);
          byPoint.put(
              r.value("point_id"),
              new RestartState.PointValue(r.value("point_id"), v, Instant.parse(r.value("since"))));
        }
        case ACTION_COOLDOWNS -> {
          RestartState.Cooldown c =
              new RestartState.Cooldown(
                  r.value("rule_id"),
                  Integer.parseInt(r.value("action_index")),
                  Instant.parse(r.value("last_fired_at")),
                  ActionId.parse(r.value("action_id")).map(ActionId::generation).orElse(0L));
          byAction.put(c.ruleId() + "/" + c.actionIndex(), c);
        }
        case DERIVED_SNAPSHOTS -> {
          snapshot = Optional.of(r.value("snapshot"));
          Set<String> l = new TreeSet<>();
          parse(r.value("latches")).forEach(id -> l.add(id.asText()));
          latched = l;
          List<OperatorOverride> o = new ArrayList<>();
          parse(r.value("overrides")).forEach(n -> o.add(override(n)));
          kept = o;
        }
        default -> {}
      }
    }
    return new RestartState(
        new ArrayList<>(byPoint.values()),
        snapshot,
        latched,
        kept,
        new ArrayList<>(byAction.values()));
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
