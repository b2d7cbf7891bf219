package io.sentinel.store;

import io.sentinel.engine.Engine;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.journal.JournalJson;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Value;
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
 * What a restart takes back from the log: each point's last value (restored with quality {@code
 * restored}, which no rule counts as live), the derived points' last state, the DSL's latches that
 * had not been released and the operator overrides in force (both kept with the derived state), and
 * each action's last firing (its cooldown).
 */
public record RestoredState(
    List<PointValue> values,
    Optional<String> derivedSnapshot,
    Set<String> latchedRules,
    List<OperatorOverride> overrides,
    List<Cooldown> cooldowns) {

  public record PointValue(String pointId, Value value, Instant since) {}

  public record Cooldown(String ruleId, int actionIndex, Instant lastFired) {}

  /** Nothing to restore (a first start, or PostgreSQL away with an empty journal). */
  public static final RestoredState NONE =
      new RestoredState(List.of(), Optional.empty(), Set.of(), List.of(), List.of());

  /**
   * This state with the journal's newer rows on top (point values and cooldowns by key, the
   * snapshot whole): the records PostgreSQL had not taken when the gateway stopped.
   */
  RestoredState overlaid(List<io.sentinel.store.Row> newer) {
    if (newer.isEmpty()) {
      return this;
    }
    java.util.Map<String, PointValue> byPoint = new java.util.LinkedHashMap<>();
    values.forEach(v -> byPoint.put(v.pointId(), v));
    java.util.Map<String, Cooldown> byAction = new java.util.LinkedHashMap<>();
    cooldowns.forEach(c -> byAction.put(c.ruleId() + "/" + c.actionIndex(), c));
    Optional<String> snapshot = derivedSnapshot;
    Set<String> latched = latchedRules;
    List<OperatorOverride> kept = overrides;
    for (io.sentinel.store.Row r : newer) {
      switch (r.table()) {
        case POINT_VALUES -> {
          Value v = JournalJson.value(parse(r.value("value"))).orElse(Value.ABSENT);
          byPoint.put(
              r.value("point_id"),
              new PointValue(r.value("point_id"), v, Instant.parse(r.value("since"))));
        }
        case ACTION_COOLDOWNS -> {
          Cooldown c =
              new Cooldown(
                  r.value("rule_id"),
                  Integer.parseInt(r.value("action_index")),
                  Instant.parse(r.value("last_fired_at")));
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
    return new RestoredState(
        new ArrayList<>(byPoint.values()),
        snapshot,
        latched,
        kept,
        new ArrayList<>(byAction.values()));
  }

  public static RestoredState load(Pool pool, Duration timeout) throws RowWriter.WriteFailed {
    RowWriter db = new RowWriter(pool, timeout);
    List<PointValue> values = new ArrayList<>();
    for (Row r :
        db.await(
            pool.query("SELECT point_id, value::text AS v, since FROM point_values").execute())) {
      Value v = JournalJson.value(parse(r.getString("v"))).orElse(Value.ABSENT);
      values.add(new PointValue(r.getString("point_id"), v, instant(r.getOffsetDateTime("since"))));
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
    List<Cooldown> cooldowns = new ArrayList<>();
    for (Row r :
        db.await(
            pool.query("SELECT rule_id, action_index, last_fired_at FROM action_cooldowns")
                .execute())) {
      cooldowns.add(
          new Cooldown(
              r.getString("rule_id"),
              r.getInteger("action_index"),
              instant(r.getOffsetDateTime("last_fired_at"))));
    }
    return new RestoredState(values, snapshot, latched, overrides, cooldowns);
  }

  /** One element of {@code derived_snapshots.overrides} (see {@code Rows.derivedSnapshot}). */
  private static OperatorOverride override(com.fasterxml.jackson.databind.JsonNode o) {
    return new OperatorOverride(
        o.path("point").asText(),
        JournalJson.value(o.get("value")).orElse(Value.ABSENT),
        Instant.parse(o.path("until").asText()),
        o.path("by").asText(),
        o.path("reason").asText());
  }

  /**
   * Puts this state into a new engine, before its first pass. A value whose point is gone from the
   * registry, or whose type changed, is left out and named in the returned notes.
   */
  public List<String> applyTo(Engine engine) {
    List<String> notes = new ArrayList<>();
    for (PointValue pv : values) {
      int i = engine.points().indexOf(pv.pointId());
      if (i < 0) {
        notes.add("point " + pv.pointId() + " is no longer in the registry: not restored");
        continue;
      }
      PointSpec spec = engine.points().spec(i);
      if (!pv.value().isPresent() || !spec.type().accepts(pv.value())) {
        notes.add("point " + pv.pointId() + ": " + pv.value() + " is not a " + spec.type().name());
        continue;
      }
      engine.points().restore(pv.pointId(), pv.value(), pv.since());
    }
    derivedSnapshot.ifPresent(engine::restoreDerived);
    engine.restoreLatches(latchedRules);
    notes.addAll(engine.restoreOverrides(overrides));
    Set<String> latchedNow = engine.latchedRules();
    for (String id : latchedRules) {
      if (!latchedNow.contains(id)) {
        notes.add("rule " + id + " no longer latches (gone, disabled or no hold_until): released");
      }
    }
    for (Cooldown c : cooldowns) {
      if (!engine.restoreCooldown(c.ruleId(), c.actionIndex(), c.lastFired())) {
        notes.add(
            "action " + c.ruleId() + "/" + c.actionIndex() + " no longer exists: cooldown dropped");
      }
    }
    return notes;
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
