package io.sentinel.api;

import io.sentinel.engine.Engine;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.point.PointTable;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.sentinel.wire.Views;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** The API's reads of engine state (points, claims, rules), on the engine's own context. */
@Singleton
class EngineReads {
  @Inject GatewayAccess access;

  CompletionStage<String> points() {
    return engine(
        e -> {
          JsonArray out = new JsonArray();
          PointTable table = e.points();
          Map<String, OperatorOverride> overrides = e.overrides();
          for (int i = 0; i < table.size(); i++) {
            out.add(pointJson(e, i, overrides));
          }
          return out.encode();
        });
  }

  CompletionStage<String> point(String id) {
    return engine(e -> pointJson(e, GatewayAccess.pointIndex(e, id), e.overrides()).encode());
  }

  CompletionStage<String> claims() {
    return engine(
        e -> {
          JsonArray out = new JsonArray();
          for (String point : e.claimedPoints()) {
            out.add(claimJson(e, point));
          }
          return out.encode();
        });
  }

  CompletionStage<String> claim(String id) {
    return engine(
        e -> {
          GatewayAccess.pointIndex(e, id);
          return claimJson(e, id).encode();
        });
  }

  CompletionStage<String> rules() {
    return engine(
        e -> {
          JsonArray out = new JsonArray();
          for (Rule r : e.ruleSet().rules()) {
            out.add(Views.rule(r, e.status(r.id()).orElseThrow()));
          }
          return out.encode();
        });
  }

  CompletionStage<String> rule(String id) {
    return engine(
        e -> Views.rule(GatewayAccess.ruleIn(e, id), e.status(id).orElseThrow()).encode());
  }

  private <T> CompletionStage<T> engine(Function<Engine, T> query) {
    return access.loop().inspectEngine(query);
  }

  private JsonObject pointJson(Engine e, int i, Map<String, OperatorOverride> overrides) {
    String id = e.points().spec(i).id();
    return Views.point(
        e.points().spec(i),
        e.points().state(i),
        e.ruleSet().derived().contains(id),
        Optional.ofNullable(overrides.get(id)));
  }

  private static JsonObject claimJson(Engine e, String point) {
    JsonObject o = io.sentinel.wire.Payloads.claimsJson(e.decision(point), e.clock());
    return o.put(
        "output",
        e.output(point)
            .map(
                d ->
                    new JsonObject()
                        .put("value", d.value().map(Value::toPlain).orElse(null))
                        .put("rule", d.winner().map(c -> c.ruleId()).orElse(null)))
            .orElse(null));
  }
}
