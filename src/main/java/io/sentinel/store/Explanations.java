package io.sentinel.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.passlog.Explanation;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.wire.PassLogJson;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link Explanation} of a point at a past instant, from the log (docs/api.md, "why"): the last
 * decision on it at or before the instant ({@code decisions}: value, winner, band, deciding key,
 * contenders), the winning rule's inputs as its last audit entry on the point up to that decision
 * recorded them ({@code audit_log.matched_inputs}), and the last command issued to it with its
 * delivery state at the instant ({@code commands}, {@code command_states}).
 */
public final class Explanations {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Pool pool;
  private final RowWriter db;

  public Explanations(Pool pool, Duration timeout) {
    this.pool = pool;
    this.db = new RowWriter(pool, timeout);
  }

  public Explanation at(String pointId, Instant at) throws RowWriter.WriteFailed {
    Tuple args = Tuple.of(pointId, at.toString());
    Optional<Instant> decidedAt = Optional.empty();
    Optional<Value> value = Optional.empty();
    Optional<String> rule = Optional.empty();
    Optional<Band> band = Optional.empty();
    String key = "";
    List<Explanation.Contender> contenders = new ArrayList<>();
    for (Row r :
        rows(
            "SELECT at, kind, value::text AS v, rule_id, band, deciding_key, contenders::text AS c"
                + " FROM decisions WHERE point_id = $1 AND at <= $2::text::timestamptz"
                + " ORDER BY at DESC, seq DESC LIMIT 1",
            args)) {
      decidedAt = Optional.of(r.getOffsetDateTime("at").toInstant());
      value = Optional.of(value(tree(r.getString("v")))).filter(Value::isPresent);
      rule = Optional.ofNullable(r.getString("rule_id"));
      band = Optional.ofNullable(r.getString("band")).flatMap(Band::parse);
      key = r.getString("deciding_key");
      for (JsonNode c : tree(r.getString("c"))) {
        contenders.add(
            new Explanation.Contender(
                c.path("rule").asText(),
                Band.parse(c.path("band").asText()).orElse(Band.AMBIENT),
                c.path("priority").asInt(),
                value(c.get("value"))));
      }
    }
    Optional<Integer> priority =
        rule.flatMap(
            r ->
                contenders.stream()
                    .filter(c -> c.rule().equals(r))
                    .map(Explanation.Contender::priority)
                    .findFirst());
    List<Explanation.Input> inputs = new ArrayList<>();
    Optional<Instant> inputsAt = Optional.empty();
    if (rule.isPresent()) {
      for (Row r :
          rows(
              "SELECT at, matched_inputs::text AS mi FROM audit_log WHERE rule_id = $1 AND"
                  + " at <= $2::text::timestamptz AND resolved_outputs @> $3::text::jsonb"
                  + " ORDER BY seq DESC LIMIT 1",
              Tuple.of(
                  rule.get(),
                  decidedAt.orElseThrow().toString(),
                  "[{\"point\": " + JSON.valueToTree(pointId) + "}]"))) {
        inputsAt = Optional.of(r.getOffsetDateTime("at").toInstant());
        for (Iterator<Map.Entry<String, JsonNode>> it = tree(r.getString("mi")).fields();
            it.hasNext(); ) {
          Map.Entry<String, JsonNode> in = it.next();
          JsonNode v = in.getValue();
          inputs.add(
              new Explanation.Input(
                  in.getKey(),
                  v.path("point").asText(),
                  Optional.of(value(v.get("value"))).filter(Value::isPresent),
                  v.path("quality").asText("unknown")));
        }
      }
    }
    return new Explanation(
        pointId,
        at,
        "log",
        decidedAt,
        value,
        rule,
        band,
        priority,
        inputs,
        inputsAt,
        key,
        contenders,
        command(pointId, at));
  }

  private Optional<Explanation.CommandState> command(String pointId, Instant at)
      throws RowWriter.WriteFailed {
    for (Row c :
        rows(
            "SELECT command_id, kind, value::text AS v, issued_at, state, state_at FROM commands"
                + " WHERE point_id = $1 AND issued_at <= $2::text::timestamptz"
                + " ORDER BY issued_at DESC, seq DESC LIMIT 1",
            Tuple.of(pointId, at.toString()))) {
      String id = c.getString("command_id");
      String state = c.getString("state");
      Optional<Instant> stateAt = Optional.of(c.getOffsetDateTime("state_at").toInstant());
      for (Row s :
          rows(
              "SELECT state, at FROM command_states WHERE command_id = $1 AND"
                  + " at <= $2::text::timestamptz ORDER BY seq DESC LIMIT 1",
              Tuple.of(id, at.toString()))) {
        state = s.getString("state");
        stateAt = Optional.of(s.getOffsetDateTime("at").toInstant());
      }
      return Optional.of(
          new Explanation.CommandState(
              id,
              c.getString("kind"),
              value(tree(c.getString("v"))),
              c.getOffsetDateTime("issued_at").toInstant(),
              state,
              stateAt,
              Optional.empty()));
    }
    return Optional.empty();
  }

  private io.vertx.sqlclient.RowSet<Row> rows(String sql, Tuple args) throws RowWriter.WriteFailed {
    return db.await(pool.preparedQuery(sql).execute(args));
  }

  private static Value value(JsonNode json) {
    return json == null ? Value.ABSENT : PassLogJson.value(json).orElse(Value.ABSENT);
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("the log holds no JSON: " + json, e);
    }
  }
}
