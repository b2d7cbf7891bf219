package io.sentinel.api;

import io.sentinel.command.CommandPlane;
import io.sentinel.engine.Engine;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Warmup;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.store.Trends;
import io.sentinel.wire.Payloads;
import io.sentinel.wire.Views;
import io.smallrye.common.annotation.Blocking;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * The operator page's header and outputs (docs/page.md): {@code GET /api/v1/status} (site,
 * revision, MQTT and database, rule counts per state, why each rule is not active, the last
 * rejected revision, the latest events and audit records) and {@code GET /api/v1/outputs} (each
 * output's decision beside what was commanded and whether it was delivered). Engine and command
 * plane are read on the engine's context; the log on a worker thread.
 */
@Path("/api/v1")
public class StatusView {
  static final int RECENT = 25;

  @Inject Gateway gateway;
  @Inject GatewayAccess access;

  @GET
  @Path("status")
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public CompletionStage<String> status() {
    EngineLoop loop = access.loop();
    JsonObject out =
        new JsonObject()
            .put("site", gateway.siteName())
            .put("revision", gateway.activeRevision())
            .put("state", gateway.running() ? "online" : "standby")
            .put(
                "mqtt",
                new JsonObject()
                    .put("connected", gateway.connected())
                    .put("broker", gateway.brokerUrl()))
            .put("database", new JsonObject().put("ready", gateway.databaseReady()));
    Map<String, JsonObject> lastRuleEvents = Map.of();
    try {
      Trends trends = access.trends();
      lastRuleEvents = trends.ruleReasons();
      out.put("last_rejected", trends.lastRejected().orElse(null))
          .put("events", trends.events(RECENT))
          .put("audit", trends.audit(RECENT));
    } catch (Exception e) {
      out.put("log_error", "the log cannot be read now: " + e.getMessage());
    }
    Map<String, JsonObject> ruleEvents = lastRuleEvents;
    return loop.inspectEngine(
        e -> {
          JsonObject counts = new JsonObject();
          for (RuleState s : RuleState.values()) {
            counts.put(s.wireName(), 0);
          }
          JsonObject reasons = new JsonObject();
          for (Rule r : e.ruleSet().rules()) {
            RuleStatus s = e.status(r.id()).orElseThrow();
            counts.put(s.state().wireName(), counts.getInteger(s.state().wireName()) + 1);
            String why = reason(e, r, s, ruleEvents.get(r.id()));
            if (why != null) {
              reasons.put(r.id(), why);
            }
          }
          return out.put("rules", counts)
              .put("reasons", reasons)
              .put("engine_clock", e.clock().toString())
              .encode();
        });
  }

  @GET
  @Path("outputs")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> outputs() {
    EngineLoop loop = access.loop();
    CompletableFuture<JsonArray> decided =
        loop.inspectEngine(
            e -> {
              JsonArray list = new JsonArray();
              Map<String, OperatorOverride> overrides = e.overrides();
              for (int i = 0; i < e.points().size(); i++) {
                PointSpec spec = e.points().spec(i);
                if (!spec.direction().claimable()) {
                  continue;
                }
                JsonObject o = Payloads.claimsJson(e.decision(spec.id()), e.clock());
                OperatorOverride ov = overrides.get(spec.id());
                o.put("override", ov == null ? null : Views.override(ov))
                    .put("type", spec.type().name())
                    .put("unit", spec.unit().isNone() ? null : spec.unit().describe())
                    .put("feedback", feedback(spec, e.points().state(i)));
                list.add(o);
              }
              return list;
            });
    return decided.thenCompose(
        list ->
            loop.inspect(
                plane -> {
                  for (Object item : list) {
                    JsonObject o = (JsonObject) item;
                    o.put("command", command(plane, o.getString("point")));
                  }
                  return list.encode();
                }));
  }

  /** An inout point reports what the device did; an out point has nothing to report. */
  private static JsonObject feedback(PointSpec spec, PointState state) {
    if (spec.direction() != io.sentinel.point.Direction.INOUT) {
      return null;
    }
    return new JsonObject()
        .put("value", state.value().toPlain())
        .put("quality", state.quality().wireName())
        .put("since", state.since().toString());
  }

  private static JsonObject command(CommandPlane plane, String point) {
    return plane
        .status(point)
        .map(
            c ->
                new JsonObject()
                    .put(
                        "last",
                        c.lastCommand()
                            .map(
                                k ->
                                    new JsonObject()
                                        .put("id", k.commandId())
                                        .put("kind", k.kind().wireName())
                                        .put("value", k.value().toPlain())
                                        .put("rule", k.ruleId().orElse(null))
                                        .put("at", k.at().toString()))
                            .orElse(null))
                    .put("delivered", c.delivered())
                    .put("waiting", c.waiting().map(v -> v.toPlain()).orElse(null))
                    .put("unconfirmed", c.unconfirmed())
                    .put("interlock_unenforced", c.interlockUnenforced()))
        .orElse(null);
  }

  /**
   * Why a rule is where it is, in a sentence, when it is not simply active: the inputs its warmup
   * waits for, the inputs it lost, or what the engine said when it suspended it.
   */
  static String reason(Engine e, Rule r, RuleStatus s, JsonObject lastEvent) {
    // The newest event about the rule, when it is the one that put it where it is (the journal
    // writes events a few milliseconds after their pass: until then, the general sentence).
    String kind = lastEvent == null ? "" : lastEvent.getString("kind");
    String said =
        switch (s.state()) {
          case SUSPENDED -> kind.equals("rule-suspended") ? lastEvent.getString("message") : "";
          case HOLDING, INPUT_LOST ->
              kind.equals("input-lost") || kind.equals("hold-expired")
                  ? lastEvent.getString("message")
                  : "";
          default -> "";
        };
    return switch (s.state()) {
      case ACTIVE -> null;
      case DISABLED -> "enabled: false in " + r.where().file();
      case SUSPENDED ->
          said.isEmpty()
              ? "the evaluation limit tripped; waits for an operator to resume it"
              : said;
      case WARMUP -> warmup(e, r);
      case HOLDING, INPUT_LOST -> {
        String lost = inputs(e, r, q -> q != Quality.LIVE);
        yield (lost.isEmpty() ? "" : "inputs not live: " + lost)
            + (said.isEmpty() ? "" : (lost.isEmpty() ? "" : "; ") + said);
      }
    };
  }

  private static String warmup(Engine e, Rule r) {
    if (r.warmup() instanceof Warmup.Deadline d) {
      return "warmup: deadline(" + d.cap().toSeconds() + "s) from the start or activation";
    }
    boolean known = r.warmup() instanceof Warmup.AllInputsKnown;
    List<String> waiting =
        r.inputs().values().stream()
            .distinct()
            .filter(
                id -> {
                  int i = e.points().indexOf(id);
                  Quality q = e.points().state(i).quality();
                  return known
                      ? q != Quality.LIVE && q != Quality.STALE
                      : !e.points().liveSinceStart(i);
                })
            .map(
                id ->
                    id + " (" + e.points().state(e.points().indexOf(id)).quality().wireName() + ")")
            .toList();
    String policy = known ? "all_inputs_known" : "all_inputs_live";
    return waiting.isEmpty()
        ? "warmup (" + policy + "): inputs ready, deciding at the next pass"
        : "warmup (" + policy + "): waiting for " + String.join(", ", waiting);
  }

  private static String inputs(Engine e, Rule r, java.util.function.Predicate<Quality> bad) {
    return r.inputs().values().stream()
        .distinct()
        .filter(id -> bad.test(e.points().state(e.points().indexOf(id)).quality()))
        .map(id -> id + " (" + e.points().state(e.points().indexOf(id)).quality().wireName() + ")")
        .collect(Collectors.joining(", "));
  }
}
