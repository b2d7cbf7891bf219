package io.sentinel.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.audit.AuditVerifier;
import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.Engine;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.PointTable;
import io.sentinel.point.Value;
import io.sentinel.rule.Problem;
import io.sentinel.rule.RevisionDocument;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Site;
import io.sentinel.rule.YamlFile;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.store.History;
import io.sentinel.wire.PassLogJson;
import io.sentinel.wire.Views;
import io.smallrye.common.annotation.Blocking;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The HTTP API (CONTRACT section 6; docs/api.md). Thin: engine state is read, and operator requests
 * are made, on the engine's own context through {@link EngineLoop}; the audit log is read through
 * the store's {@link History}, as {@code sentinel audit} reads it; rule files are checked by {@link
 * Site#checkRules}, as {@code sentinel validate} checks them.
 */
@Path("/api/v1")
public class ApiResource {
  static final String NDJSON = "application/x-ndjson";
  static final int DEFAULT_LIMIT = 1000;
  static final int MAX_LIMIT = 10_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> OVERRIDE_KEYS = Set.of("value", "expires_in", "by", "reason");

  @Inject Gateway gateway;
  @Inject ApiToken token;

  @Inject SentinelConfig config;

  // ---- engine state -------------------------------------------------------------------------

  @GET
  @Path("points")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> points() {
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

  @GET
  @Path("points/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> point(@PathParam("id") String id) {
    return engine(e -> pointJson(e, pointIndex(e, id), e.overrides()).encode());
  }

  @GET
  @Path("claims")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> claims() {
    return engine(
        e -> {
          JsonArray out = new JsonArray();
          for (String point : e.claimedPoints()) {
            out.add(claimJson(e, point));
          }
          return out.encode();
        });
  }

  @GET
  @Path("claims/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> claim(@PathParam("id") String id) {
    return engine(
        e -> {
          pointIndex(e, id);
          return claimJson(e, id).encode();
        });
  }

  @GET
  @Path("rules")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> rules() {
    return engine(
        e -> {
          JsonArray out = new JsonArray();
          for (Rule r : e.ruleSet().rules()) {
            out.add(Views.rule(r, e.status(r.id()).orElseThrow()));
          }
          return out.encode();
        });
  }

  @GET
  @Path("rules/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> rule(@PathParam("id") String id) {
    return engine(e -> Views.rule(ruleIn(e, id), e.status(id).orElseThrow()).encode());
  }

  // ---- operator requests (bearer token) -----------------------------------------------------

  /**
   * {@code POST rules/<id>:resume}. Quarkus REST matches no template inside a path segment ({@code
   * {id}:resume}), so the segment is taken whole and split here.
   */
  @POST
  @Path("rules/{segment}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> ruleAction(
      @PathParam("segment") String segment,
      @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    if (!segment.endsWith(":resume")) {
      throw ApiError.notFound(
          "path", "no action " + segment + "; POST /api/v1/rules/<id>:resume resumes a rule");
    }
    return resume(segment.substring(0, segment.length() - ":resume".length()), authorization);
  }

  private CompletionStage<String> resume(String id, String authorization) {
    token.require(authorization);
    EngineLoop loop = loop();
    return loop.operate(
            (e, now) -> {
              ruleIn(e, id);
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
            x -> loop.inspectEngine(e -> Views.rule(ruleIn(e, id), e.status(id).orElseThrow())))
        .thenApply(JsonObject::encode);
  }

  /**
   * Body: {@code {"value": …, "expires_in": "30m", "by": "…", "reason": "…"}}; {@code value} and
   * {@code expires_in} are required.
   */
  @PUT
  @Path("points/{id}/override")
  @Consumes(MediaType.WILDCARD)
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> override(
      @PathParam("id") String id,
      @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
      String body) {
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
    EngineLoop loop = loop();
    return loop.operate(
            (e, now) -> {
              int index = pointIndex(e, id);
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

  @DELETE
  @Path("points/{id}/override")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> clearOverride(
      @PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    token.require(authorization);
    return loop()
        .operate(
            (e, now) -> {
              pointIndex(e, id);
              OperatorOverride o = e.overrides().get(id);
              if (o == null) {
                throw ApiError.notFound("id", "point " + id + " has no override");
              }
              e.clearOverride(id);
              return o;
            })
        .thenApply(o -> Views.override(o).put("cleared", true).encode());
  }

  // ---- validation ---------------------------------------------------------------------------

  /**
   * A rule file (native or DSL, YAML or JSON) checked against this gateway's registry: 200 with the
   * warnings when it has no error, 422 with every problem when it has. {@code file} names the body
   * in the problems.
   */
  @POST
  @Path("{segment}")
  @Consumes(MediaType.WILDCARD)
  @Produces(MediaType.APPLICATION_JSON)
  public Response post(
      @PathParam("segment") String segment,
      @QueryParam("file") String file,
      @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
      String body) {
    if (!segment.equals("rules:validate")) {
      throw ApiError.notFound("path", "no endpoint POST /api/v1/" + segment);
    }
    return validate(file, contentType, body);
  }

  private Response validate(String file, String contentType, String body) {
    if (contentType != null && !readableAsYaml(contentType)) {
      throw new ApiError(
          415,
          "Content-Type",
          "send the rule file as application/yaml, application/json or text/plain, not "
              + contentType);
    }
    if (body == null || body.isBlank()) {
      throw ApiError.badRequest("body", "empty body: send a rule file (YAML or JSON)");
    }
    String name = file == null || file.isBlank() ? "request.yaml" : file.trim();
    if (isRevision(name, body)) {
      return revision(name, body);
    }
    Site.Checked checked = site().checkRules(name, body);
    return validation("rules", checked.rules().size(), checked.problems());
  }

  /**
   * A revision document (CONTRACT section 4), checked whole as the {@code ruleset} topic checks one
   * (the same {@link RevisionDocument#check}) against this gateway's registry, derived points and
   * site name. Its signature is not judged here: whether a key is trusted is the gateway's decision
   * at activation (docs/revisions.md).
   */
  private Response revision(String name, String body) {
    RevisionDocument.Checked checked =
        RevisionDocument.check(name, body, site().basis(), gateway.siteName());
    return validation(
        "revision", checked.ruleSet().map(r -> r.rules().size()).orElse(0), checked.problems());
  }

  static Response validation(String kind, int rules, List<Problem> problems) {
    JsonObject out = io.sentinel.wire.Payloads.validationJson(kind, rules, problems);
    return Response.status(out.getBoolean("valid") ? 200 : 422)
        .type(MediaType.APPLICATION_JSON)
        .entity(out.encode())
        .build();
  }

  private static boolean isRevision(String name, String body) {
    Optional<Node> root = new YamlFile(name, new io.sentinel.rule.Problems()).parse(body);
    return root.isPresent()
        && root.get() instanceof MappingNode m
        && m.getValue().stream()
            .anyMatch(
                t ->
                    t.getKeyNode() instanceof org.snakeyaml.engine.v2.nodes.ScalarNode k
                        && k.getValue().equals("revision"));
  }

  private static boolean readableAsYaml(String contentType) {
    String type = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return Set.of(
            "application/yaml",
            "application/x-yaml",
            "text/yaml",
            "text/x-yaml",
            "application/json",
            "text/plain",
            "application/octet-stream")
        .contains(type);
  }

  // ---- audit --------------------------------------------------------------------------------

  /**
   * The audit log as NDJSON, in chain order: records whose engine instant lies in {@code [from,
   * to)}, after the record {@code after}, at most {@code limit} (default 1000, at most 10000). A
   * full page says where the next begins: {@code Link: <…&after=N>; rel="next"}.
   */
  @GET
  @Path("audit")
  @Produces(NDJSON)
  @Blocking
  public Response audit(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("limit") String limit,
      @QueryParam("after") String after) {
    Optional<Instant> fromAt = instant("from", from);
    Optional<Instant> toAt = instant("to", to);
    if (fromAt.isPresent() && toAt.isPresent() && !toAt.get().isAfter(fromAt.get())) {
      throw ApiError.badRequest("to", "to (" + to + ") must lie after from (" + from + ")");
    }
    int max = (int) integer("limit", limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
    long afterSeq = integer("after", after, 0, 0, Long.MAX_VALUE);
    StringBuilder out = new StringBuilder();
    long[] last = {afterSeq};
    long n;
    try {
      n =
          gateway
              .history()
              .audit(
                  new History.AuditPage(fromAt, toAt, afterSeq, max),
                  line -> {
                    out.append(line.text()).append('\n');
                    last[0] = line.seq();
                  });
    } catch (Exception e) {
      throw new ApiError(503, "", "the audit log cannot be read now: " + e.getMessage());
    }
    Response.ResponseBuilder r =
        Response.ok(out.toString(), NDJSON).header("Sentinel-Audit-Count", n);
    if (n == max) {
      StringBuilder next = new StringBuilder("/api/v1/audit?");
      fromAt.ifPresent(t -> next.append("from=").append(t).append('&'));
      toAt.ifPresent(t -> next.append("to=").append(t).append('&'));
      next.append("limit=").append(max).append("&after=").append(last[0]);
      r.header("Link", "<" + next + ">; rel=\"next\"");
    }
    return r.build();
  }

  /**
   * {@code GET audit:verify}: the whole chain checked link by link, {@code intact} or the first
   * broken link. (A colon in a literal path does not match in Quarkus REST: the segment is taken
   * whole; the literal paths above match first.)
   */
  @GET
  @Path("{segment}")
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public String get(@PathParam("segment") String segment) {
    if (!segment.equals("audit:verify")) {
      throw ApiError.notFound("path", "no endpoint GET /api/v1/" + segment);
    }
    return verify();
  }

  private String verify() {
    AuditVerifier.Verdict v;
    try {
      v = gateway.history().verifyAudit();
    } catch (Exception e) {
      throw new ApiError(503, "", "the audit log cannot be read now: " + e.getMessage());
    }
    return new JsonObject()
        .put("intact", v.intact())
        .put("checked", v.checked())
        .put("head", v.intact() ? v.headHash() : null)
        .put(
            "broken",
            v.broken()
                .map(
                    b ->
                        new JsonObject()
                            .put("where", b.where())
                            .put("seq", b.seq())
                            .put("event_id", b.eventId())
                            .put("why", b.why()))
                .orElse(null))
        .put("message", v.describe())
        .encode();
  }

  // ---- errors -------------------------------------------------------------------------------

  @ServerExceptionMapper
  public Response refused(ApiError e) {
    Response.ResponseBuilder r =
        Response.status(e.status()).type(MediaType.APPLICATION_JSON).entity(e.json().encode());
    if (e.status() == 401) {
      r.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"sentinel\"");
    }
    return r.build();
  }

  @ServerExceptionMapper
  public Response failed(CompletionException e) {
    if (e.getCause() instanceof ApiError a) {
      return refused(a);
    }
    if (e.getCause() instanceof IllegalStateException stopped) {
      // the engine stopped under the request (a gateway stopping or restarting)
      return refused(new ApiError(503, "", stopped.getMessage()));
    }
    return refused(new ApiError(500, "", String.valueOf(e.getCause())));
  }

  // ---- helpers ------------------------------------------------------------------------------

  private <T> CompletionStage<T> engine(Function<Engine, T> query) {
    return loop().inspectEngine(query);
  }

  private EngineLoop loop() {
    EngineLoop loop = gateway.loop();
    if (loop == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return loop;
  }

  private Site site() {
    Site site = gateway.site();
    if (site == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return site;
  }

  /**
   * The rule as the engine runs it: the active revision's, which a push may have replaced since the
   * site's files were read. On the engine's context.
   */
  private static Rule ruleIn(Engine e, String id) {
    return e.ruleSet()
        .rule(id)
        .orElseThrow(() -> ApiError.notFound("id", "no rule " + id + " in the active rule set"));
  }

  private static int pointIndex(Engine e, String id) {
    int i = e.points().indexOf(id);
    if (i < 0) {
      throw ApiError.notFound("id", "no point " + id + " in the registry");
    }
    return i;
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

  private static Optional<Instant> instant(String field, String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(OffsetDateTime.parse(text.trim()).toInstant());
    } catch (DateTimeParseException e) {
      throw ApiError.badRequest(
          field, field + " '" + text + "' is not an ISO-8601 instant (e.g. 2026-11-30T10:00:00Z)");
    }
  }

  private static long integer(String field, String text, long fallback, long min, long max) {
    if (text == null || text.isBlank()) {
      return fallback;
    }
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw ApiError.badRequest(field, field + " '" + text + "' is not a whole number");
    }
    if (v < min || v > max) {
      throw ApiError.badRequest(field, field + " must lie in [" + min + ", " + max + "]");
    }
    return v;
  }
}
