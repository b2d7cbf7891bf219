package io.sentinel.wire;

import io.sentinel.passlog.Explanation;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * {@link Explanation} as JSON: the body of {@code GET /api/v1/points/<id>/why}, of {@code sentinel
 * why --json} and what the operator page's "why" panel reads (docs/api.md).
 */
public final class ExplanationJson {
  private ExplanationJson() {}

  public static JsonObject of(Explanation e) {
    JsonArray inputs = new JsonArray();
    e.inputs()
        .forEach(
            i ->
                inputs.add(
                    new JsonObject()
                        .put("name", i.name())
                        .put("point", i.pointId())
                        .put("value", i.value().map(Value::toPlain).orElse(null))
                        .put("quality", i.quality())));
    JsonArray contenders = new JsonArray();
    e.contenders()
        .forEach(
            c ->
                contenders.add(
                    new JsonObject()
                        .put("rule", c.rule())
                        .put("band", c.band().wireName())
                        .put("priority", c.priority())
                        .put("value", c.value().toPlain())));
    JsonObject command =
        e.command()
            .map(
                c ->
                    new JsonObject()
                        .put("command_id", c.commandId())
                        .put("kind", c.kind())
                        .put("value", c.value().toPlain())
                        .put("issued_at", c.issuedAt().toString())
                        .put("state", c.state())
                        .put("state_at", c.stateAt().map(Instant::toString).orElse(null))
                        .put("waiting", c.waiting().map(Value::toPlain).orElse(null)))
            .orElse(null);
    return new JsonObject()
        .put("point", e.pointId())
        .put("at", e.at().toString())
        .put("source", e.source())
        .put("decided_at", e.decidedAt().map(Instant::toString).orElse(null))
        .put("value", e.value().map(Value::toPlain).orElse(null))
        .put("rule", e.rule().orElse(null))
        .put("band", e.band().map(Band::wireName).orElse(null))
        .put("priority", e.priority().orElse(null))
        .put("inputs", inputs)
        .put("inputs_at", e.inputsAt().map(Instant::toString).orElse(null))
        .put("deciding_key", e.decidingKey())
        .put("contenders", contenders)
        .put("command", command);
  }
}
