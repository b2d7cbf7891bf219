package io.sentinel.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.Value;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.wire.PassLogJson;
import io.sentinel.wire.Views;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/** The API's operator requests (bearer token): resume a rule, set or clear an override. */
@Singleton
class OperatorActions {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> OVERRIDE_KEYS = Set.of("value", "expires_in", "by", "reason");

  @Inject GatewayAccess access;
  @Inject ApiToken token;
  @Inject SentinelConfig config;

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
  CompletionStage<String> override(String id, String authorization, String body) {
    token.require(authorization);
    JsonNode request = jsonBody(body);
    Iterator<String> names = request.fieldNames();
    while (names.hasNext()) {
      String key = names.next();
      if (!OVERRIDE_KEYS.contains(key)) {
        throw ApiError.badRequest(
            key, "unknown key '" + key + "'; allowed: by, expires_in, reason, value");
      }
    }
    Value value = overrideValue(request.get("value"));
    Duration expiresIn = overrideDuration(request.get("expires_in"));
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

  private static JsonNode jsonBody(String body) {
    if (body == null || body.isBlank()) {
      throw ApiError.badRequest("body", "empty body: send a JSON object");
    }
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("body", "not JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw ApiError.badRequest("body", "expected a JSON object");
    }
    return node;
  }

  private static Value overrideValue(JsonNode node) {
    if (node == null) {
      throw ApiError.badRequest("value", "value is required");
    }
    Optional<Value> v = PassLogJson.value(node);
    if (v.isEmpty() || !v.get().isPresent()) {
      throw ApiError.badRequest("value", "value must be a JSON boolean, number or string");
    }
    return v.get();
  }

  private Duration overrideDuration(JsonNode node) {
    Duration overrideMax = config.api().overrideMax();
    if (node == null || !node.isTextual()) {
      throw ApiError.badRequest(
          "expires_in", "expires_in is required: a duration such as \"30m\" or \"2h\"");
    }
    Duration d =
        YamlFile.parseDuration(node.textValue())
            .orElseThrow(
                () ->
                    ApiError.badRequest(
                        "expires_in",
                        "'"
                            + node.textValue()
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

  private static String text(JsonNode request, String field, String fallback, int maxLength) {
    JsonNode n = request.get(field);
    if (n == null || n.isNull()) {
      return fallback;
    }
    if (!n.isTextual() || n.textValue().length() > maxLength) {
      throw ApiError.badRequest(
          field, field + " must be a string of at most " + maxLength + " characters");
    }
    return n.textValue();
  }
}
