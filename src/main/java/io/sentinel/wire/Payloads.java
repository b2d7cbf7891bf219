package io.sentinel.wire;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.command.Command;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The JSON the gateway publishes (CONTRACT section 2); the one place that knows its field names.
 */
public final class Payloads {
  private Payloads() {}

  /**
   * {@code {"value", "band", "rule", "command_id", "ts", "kind"}}. A release carries the point's
   * release_value, or {@code "value": null} when it has none; band and rule are null for a release.
   */
  public static byte[] command(Command c) {
    JsonObject json =
        new JsonObject()
            .put("value", c.value().toPlain())
            .put("band", c.band().map(Band::wireName).orElse(null))
            .put("rule", c.ruleId().orElse(null))
            .put("command_id", c.commandId())
            .put("ts", c.at().toString())
            .put("kind", c.kind().wireName());
    if (c.kind() == Command.Kind.FADE) {
      json.put("ramp_ms", c.ramp().toMillis());
    } else if (c.kind() == Command.Kind.PULSE_ON) {
      json.put("pulse_ms", c.ramp().toMillis());
    }
    return bytes(json);
  }

  /** The winning claim, every contender and the deciding key (retained {@code claims/<id>}). */
  public static byte[] claims(Decision d, Instant at) {
    return bytes(claimsJson(d, at));
  }

  /** A point's arbitration as {@code claims/<id>} and the HTTP API's {@code /claims} show it. */
  public static JsonObject claimsJson(Decision d, Instant at) {
    JsonArray contenders = new JsonArray();
    d.contenders().forEach(c -> contenders.add(claim(c)));
    return new JsonObject()
        .put("point", d.pointId())
        .put("value", d.value().map(Value::toPlain).orElse(null))
        .put("winner", d.winner().map(Payloads::claim).orElse(null))
        .put("contenders", contenders)
        .put("deciding_key", d.decidingKey())
        .put("ts", at.toString());
  }

  private static JsonObject claim(Claim c) {
    return new JsonObject()
        .put("rule", c.ruleId())
        .put("band", c.band().wireName())
        .put("priority", c.priority())
        .put("value", c.value().toPlain())
        .put("freshness", c.freshness().toString())
        .put("matched", c.matched());
  }

  public static byte[] event(ControlEvent e) {
    return bytes(
        new JsonObject()
            .put("kind", e.kind())
            .put("subject", e.subject())
            .put("message", e.message())
            .put("ts", e.at().toString()));
  }

  /** An action ({@code events/notify}, {@code events/pulse}): its own fields, rendered. */
  public static byte[] action(ActionFired a) {
    JsonObject o = new JsonObject().put("id", a.id()).put("rule", a.ruleId()).put("kind", a.kind());
    a.fields().forEach(o::put);
    return bytes(o.put("ts", a.at().toString()));
  }

  /** {@code state/<point>}: {@code {"value", "quality", "ts"}}, ts when either last changed. */
  public static byte[] state(io.sentinel.point.PointState s) {
    return bytes(
        new JsonObject()
            .put("value", s.value().toPlain())
            .put("quality", s.quality().wireName())
            .put("ts", s.since().toString()));
  }

  public static byte[] self(SelfPoint p) {
    return bytes(new JsonObject().put("value", p.value().toPlain()).put("ts", p.at().toString()));
  }

  /** {@code {"state": "online"|"offline", "revision": …, "started": …}}. */
  public static byte[] status(String state, Optional<Long> revision, Instant started) {
    return bytes(
        new JsonObject()
            .put("state", state)
            .put("revision", revision.orElse(null))
            .put("started", started.toString()));
  }

  /**
   * One problem as {@code ruleset/status} and {@code POST /api/v1/rules:validate} carry it: {@code
   * {"severity", "code", "file", "line", "rule", "message"}}.
   */
  /**
   * A validation's verdict, as {@code POST /api/v1/rules:validate} and {@code sentinel validate
   * --format json} give it: {@code {"kind", "valid", "rules", "errors", "warnings", "problems"}}.
   */
  public static JsonObject validationJson(
      String kind, int rules, List<io.sentinel.site.yaml.Problem> problems) {
    long errors = problems.stream().filter(io.sentinel.site.yaml.Problem::isError).count();
    JsonArray list = new JsonArray();
    problems.forEach(p -> list.add(problemJson(p)));
    return new JsonObject()
        .put("kind", kind)
        .put("valid", errors == 0)
        .put("rules", rules)
        .put("errors", errors)
        .put("warnings", problems.size() - errors)
        .put("problems", list);
  }

  public static JsonObject problemJson(io.sentinel.site.yaml.Problem p) {
    return new JsonObject()
        .put("severity", p.severity().wireName())
        .put("code", p.code())
        .put("file", p.file())
        .put("line", p.line())
        .put("rule", p.rule())
        .put("message", p.message());
  }

  /**
   * {@code ruleset/status}: {@code {"revision", "state": "active"|"rejected", "active_revision",
   * "content_hash", "document_sha256", "problems": [{"severity", "code", "file", "line", "rule",
   * "message"}], "signer", "changes", "ts"}}: {@code document_sha256} is of the document's bytes as
   * delivered, signatures included.
   */
  public static byte[] rulesetStatus(
      Optional<Long> revision,
      String state,
      long activeRevision,
      Optional<String> contentHash,
      String documentSha256,
      List<io.sentinel.site.yaml.Problem> problems,
      Optional<String> signer,
      Optional<String> reviewer,
      Optional<io.sentinel.rule.RuleChanges> changes,
      Instant at) {
    io.vertx.core.json.JsonArray list = new io.vertx.core.json.JsonArray();
    problems.forEach(p -> list.add(problemJson(p)));
    JsonObject o =
        new JsonObject()
            .put("revision", revision.orElse(null))
            .put("state", state)
            .put("active_revision", activeRevision)
            .put("content_hash", contentHash.orElse(null))
            .put("document_sha256", documentSha256)
            .put("problems", list);
    signer.ifPresent(s -> o.put("signer", s));
    reviewer.ifPresent(s -> o.put("reviewer", s));
    changes.ifPresent(
        c ->
            o.put(
                "changes",
                new JsonObject()
                    .put("kept", c.kept().size())
                    .put("toggled", new io.vertx.core.json.JsonArray(c.toggled()))
                    .put("changed", new io.vertx.core.json.JsonArray(c.changed()))
                    .put("added", new io.vertx.core.json.JsonArray(c.added()))
                    .put("removed", new io.vertx.core.json.JsonArray(c.removed()))));
    return bytes(o.put("ts", at.toString()));
  }

  /** The {@code ingest-rejected} event: what was refused, where and why. */
  public static byte[] rejection(
      String reason, String topic, Optional<String> pointId, String message, Instant at) {
    return bytes(
        new JsonObject()
            .put("kind", "ingest-rejected")
            .put("subject", pointId.orElse(topic))
            .put("reason", reason)
            .put("topic", topic)
            .put("point", pointId.orElse(null))
            .put("message", message)
            .put("ts", at.toString()));
  }

  /** A JSON object as the bytes of a payload (UTF-8). */
  public static byte[] bytes(JsonObject o) {
    return o.encode().getBytes(StandardCharsets.UTF_8);
  }
}
