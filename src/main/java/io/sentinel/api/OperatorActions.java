package io.sentinel.api;

import io.sentinel.config.SentinelConfig;
import io.sentinel.door.Door;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.Value;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.wire.Views;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/** The API's operator requests (bearer token): resume a rule, set or clear an override. */
@Singleton
class OperatorActions {
  private static final Set<String> OVERRIDE_KEYS = Set.of("value", "expires_in", "by", "reason");

  @Inject GatewayAccess access;
  @Inject ApiToken token;
  @Inject SentinelConfig config;
  @Inject Bodies bodies;

  CompletionStage<String> resume(String id, String authorization) {
    token.require(authorization);
    EngineLoop loop = access.loop();
    return loop.operate(
            (e, now) -> {
              GatewayAccess.ruleIn(e, id);
              RuleStatus status = e.status(id).orElseThrow();
              if (status.state() != RuleState.SUSPENDED) {
                throw new ApiError(
                    409,
                    "id",
                    "rule "
                        + id
                        + " is "
                        + status.state().wireName()
                        + ", not suspended: there is nothing to resume");
              }
              e.resume(id);
              return id;
            })
        .thenCompose(
            x ->
                loop.inspectEngine(
                    e -> Views.rule(GatewayAccess.ruleIn(e, id), e.status(id).orElseThrow())))
        .thenApply(JsonObject::encode);
  }

  /**
   * Body: {@code {"value": …, "expires_in": "30m", "by": "…", "reason": "…"}}; {@code value} and
   * {@code expires_in} are required.
   */
  CompletionStage<String> override(String id, String authorization, byte[] body) {
    token.require(authorization);
    JsonObject request = bodies.json(body, Bodies.OVERRIDE);
    for (String key : request.fieldNames()) {
      if (!OVERRIDE_KEYS.contains(key)) {
        throw ApiError.badRequest(
            key, "unknown key '" + key + "'; allowed: by, expires_in, reason, value");
      }
    }
    Value value = overrideValue(request.getValue("value"));
    Duration expiresIn = overrideDuration(request.getValue("expires_in"));
    String by = text(request, "by", "api", 100);
    String reason = text(request, "reason", "", 500);
    EngineLoop loop = access.loop();
    return loop.operate(
            (e, now) -> {
              int index = GatewayAccess.pointIndex(e, id);
              OperatorOverride o = new OperatorOverride(id, value, now.plus(expiresIn), by, reason);
              o.check(e.points().spec(index), now)
                  .ifPresent(
                      r -> {
                        throw new ApiError(422, r.field(), r.message());
                      });
              e.override(o);
              return o;
            })
        .thenApply(o -> Views.override(o).encode());
  }

  CompletionStage<String> clearOverride(String id, String authorization) {
    token.require(authorization);
    return access
        .loop()
        .operate(
            (e, now) -> {
              GatewayAccess.pointIndex(e, id);
              OperatorOverride o = e.overrides().get(id);
              if (o == null) {
                throw ApiError.notFound("id", "point " + id + " has no override");
              }
              e.clearOverride(id);
              return o;
            })
        .thenApply(o -> Views.override(o).put("cleared", true).encode());
  }

  private static Value overrideValue(Object node) {
    if (node == null) {
      throw ApiError.badRequest("value", "value is required");
    }
    if (node instanceof Boolean b) {
      return Value.of(b);
    }
    if (node instanceof Number n) {
      return Value.of(n.doubleValue());
    }
    if (node instanceof String t) {
      return Value.of(t);
    }
    throw ApiError.badRequest("value", "value must be a JSON boolean, number or string");
  }

  private Duration overrideDuration(Object node) {
    Duration overrideMax = config.api().overrideMax();
    if (!(node instanceof String textValue)) {
      throw ApiError.badRequest(
          "expires_in", "expires_in is required: a duration such as \"30m\" or \"2h\"");
    }
    Duration d =
        YamlFile.parseDuration(textValue)
            .orElseThrow(
                () ->
                    ApiError.badRequest(
                        "expires_in",
                        "'"
                            + Door.printable(textValue, 40)
                            + "' is not a duration (write e.g. 500ms, 30s, 20m, 1h30m)"));
    if (d.isZero() || d.compareTo(overrideMax) > 0) {
      throw ApiError.badRequest(
          "expires_in",
          "expires_in must be more than 0 and at most "
              + overrideMax
              + " (sentinel.api.override-max)");
    }
    return d;
  }

  private static String text(JsonObject request, String field, String fallback, int maxLength) {
    Object n = request.getValue(field);
    if (n == null) {
      return fallback;
    }
    if (!(n instanceof String t) || t.length() > maxLength) {
      throw ApiError.badRequest(
          field, field + " must be a string of at most " + maxLength + " characters");
    }
    return t;
  }
}
