package io.sentinel.runtime;

import io.sentinel.pass.ShadowPass.Difference;
import io.sentinel.point.Value;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Optional;

/**
 * What a shadow revision reports (docs/shadow.md): each difference as the {@code
 * events/shadow-diff} event and the summary's entries carry it, and the retained {@code
 * ruleset/shadow} summary that {@code GET /api/v1/shadow} answers with too. Held on the engine's
 * context; the summary is published whole.
 */
final class ShadowReport {
  /** How many differences the summary lists besides those open now. */
  static final int RECENT = 20;

  /** The shadow revision the report is about. */
  record About(
      long revision,
      String contentHash,
      String promotedHash,
      Optional<String> signer,
      Optional<String> reviewer,
      Instant since) {}

  private final About about;
  private final ArrayDeque<JsonObject> recent = new ArrayDeque<>();
  private long differences;
  private long commands;
  private long passes;

  ShadowReport(About about) {
    this.about = about;
  }

  About about() {
    return about;
  }

  void passed() {
    passes++;
  }

  void commandRecorded() {
    commands++;
  }

  /** A difference reported: counted when it opens or changes, listed among the recent. */
  JsonObject reported(Difference d) {
    if (d.differs()) {
      differences++;
    }
    JsonObject o = difference(d);
    recent.addLast(o);
    while (recent.size() > RECENT) {
      recent.removeFirst();
    }
    return o;
  }

  /** {@code {"about", "point", "rule", "active", "shadow", "active_rule", "shadow_rule", …}}. */
  static JsonObject difference(Difference d) {
    return new JsonObject()
        .put("about", d.kind().wireName())
        .put("point", d.pointId())
        .put("rule", d.ruleId().orElse(null))
        .put("active", plain(d.active()))
        .put("shadow", plain(d.shadow()))
        .put("active_rule", d.activeRule().orElse(null))
        .put("shadow_rule", d.shadowRule().orElse(null))
        .put("state", d.differs() ? "differs" : "agrees")
        .put("at", d.at().toString());
  }

  /** The event {@code events/shadow-diff}: the event's own fields, then the difference's. */
  JsonObject event(Difference d, JsonObject difference, long activeRevision) {
    return new JsonObject()
        .put("kind", "shadow-diff")
        .put("subject", d.pointId())
        .put("message", line(d))
        .put("revision", about.revision())
        .put("active_revision", activeRevision)
        .mergeIn(difference)
        .put("ts", d.at().toString());
  }

  /** {@code command boiler.ch1.pump: active true (pump-run-on), shadow released}. */
  static String line(Difference d) {
    return d.kind().wireName()
        + " "
        + d.pointId()
        + d.ruleId().filter(r -> d.kind() == Difference.Kind.CLAIM).map(r -> " by " + r).orElse("")
        + ": "
        + (d.differs()
            ? "active " + side(d.active(), d.activeRule(), d.kind())
            : "agree again on " + side(d.active(), d.activeRule(), d.kind()))
        + (d.differs() ? ", shadow " + side(d.shadow(), d.shadowRule(), d.kind()) : "");
  }

  private static String side(Optional<Value> v, Optional<String> rule, Difference.Kind kind) {
    if (v.isEmpty()) {
      return kind == Difference.Kind.CLAIM ? "no claim" : "released";
    }
    return v.get().toPlain()
        + (kind == Difference.Kind.COMMAND ? rule.map(r -> " (" + r + ")").orElse("") : "");
  }

  /** The retained summary and {@code GET /api/v1/shadow}. */
  JsonObject summary(String state, long activeRevision, Collection<Difference> open, Instant at) {
    JsonArray openList = new JsonArray();
    open.forEach(d -> openList.add(difference(d)));
    return new JsonObject()
        .put("state", state)
        .put("revision", about.revision())
        .put("active_revision", activeRevision)
        .put("content_hash", about.contentHash())
        .put("promoted_hash", about.promotedHash())
        .put("signer", about.signer().orElse(null))
        .put("reviewer", about.reviewer().orElse(null))
        .put("since", about.since().toString())
        .put("passes", passes)
        .put("differences", differences)
        .put("commands_recorded", commands)
        .put("open", openList)
        .put("recent", new JsonArray(new java.util.ArrayList<>(recent)))
        .put("ts", at.toString());
  }

  /** No shadow revision: what {@code GET /api/v1/shadow} says. */
  static JsonObject none(long activeRevision, Instant at) {
    return new JsonObject()
        .put("state", "none")
        .put("revision", null)
        .put("active_revision", activeRevision)
        .put("ts", at.toString());
  }

  private static Object plain(Optional<Value> v) {
    return v.map(Value::toPlain).orElse(null);
  }
}
