package io.sentinel.wire;

import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.point.PointType;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Optional;

/** The API's JSON for the core's values; field names are those of docs/api.md. */
public final class Views {
  private Views() {}

  public static JsonObject point(
      PointSpec spec, PointState state, boolean derived, Optional<OperatorOverride> override) {
    JsonObject o =
        new JsonObject()
            .put("id", spec.id())
            .put("type", spec.type().name())
            .put("direction", spec.direction().wireName())
            .put("derived", derived);
    if (!spec.unit().isNone()) {
      o.put("unit", spec.unit().describe());
    }
    if (spec.type() instanceof PointType.Enum e) {
      o.put("values", new JsonArray(e.values()));
    }
    return o.put("value", state.value().toPlain())
        .put("quality", state.quality().wireName())
        .put("since", state.since().toString())
        .put("override", override.map(Views::override).orElse(null));
  }

  public static JsonObject override(OperatorOverride o) {
    return new JsonObject()
        .put("point", o.pointId())
        .put("value", o.value().toPlain())
        .put("until", o.until().toString())
        .put("by", o.by())
        .put("reason", o.reason())
        .put("rule", OperatorOverride.RULE_ID);
  }

  public static JsonObject rule(Rule rule, RuleStatus status) {
    JsonObject claims = new JsonObject();
    for (Map.Entry<String, Value> c : status.claims().entrySet()) {
      claims.put(c.getKey(), c.getValue().toPlain());
    }
    return new JsonObject()
        .put("id", rule.id())
        .put("band", rule.band().wireName())
        .put("priority", rule.priority())
        .put("state", status.state().wireName())
        .put("enabled", rule.enabled())
        .put("last_condition", status.lastCondition().orElse(null))
        .put("claims", claims)
        .put("file", rule.where().file())
        .put("line", rule.where().line())
        .put("hash", rule.definitionHash());
  }
}
