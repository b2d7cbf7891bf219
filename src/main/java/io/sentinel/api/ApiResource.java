package io.sentinel.api;

import io.sentinel.store.History;
import io.smallrye.common.annotation.Blocking;
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
import java.util.concurrent.CompletionStage;

/**
 * The HTTP API's routes (CONTRACT section 6; docs/api.md), each handed to the part that answers it:
 * {@link EngineReads} (engine state, read on the engine's own context), {@link OperatorActions}
 * (bearer token), {@link RuleValidation} (as {@code sentinel validate} checks), {@link AuditPages}
 * (the store's {@link History}, as {@code sentinel audit} reads it). The routes stay in one class:
 * Quarkus REST matches a request against one resource class per path prefix, so endpoints under
 * {@code /api/v1} split over classes would shadow each other.
 */
@Path("/api/v1")
public class ApiResource {
  @Inject EngineReads reads;
  @Inject OperatorActions actions;
  @Inject RuleValidation validation;
  @Inject AuditPages audit;

  // ---- engine state -------------------------------------------------------------------------

  @GET
  @Path("points")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> points() {
    return reads.points();
  }

  @GET
  @Path("points/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> point(@PathParam("id") String id) {
    return reads.point(id);
  }

  @GET
  @Path("claims")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> claims() {
    return reads.claims();
  }

  @GET
  @Path("claims/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> claim(@PathParam("id") String id) {
    return reads.claim(id);
  }

  @GET
  @Path("rules")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> rules() {
    return reads.rules();
  }

  @GET
  @Path("rules/{id}")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> rule(@PathParam("id") String id) {
    return reads.rule(id);
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
    return actions.resume(
        segment.substring(0, segment.length() - ":resume".length()), authorization);
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
      byte[] body) {
    return actions.override(id, authorization, body);
  }

  @DELETE
  @Path("points/{id}/override")
  @Produces(MediaType.APPLICATION_JSON)
  public CompletionStage<String> clearOverride(
      @PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return actions.clearOverride(id, authorization);
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
      @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization,
      byte[] body) {
    if (!segment.equals("rules:validate")) {
      throw ApiError.notFound("path", "no endpoint POST /api/v1/" + segment);
    }
    return validation.validate(file, contentType, authorization, body);
  }

  // ---- audit --------------------------------------------------------------------------------

  /**
   * The audit log as NDJSON, in chain order: records whose engine instant lies in {@code [from,
   * to)}, after the record {@code after}, at most {@code limit} (default 1000, at most 10000). A
   * full page says where the next begins: {@code Link: <…&after=N>; rel="next"}.
   */
  @GET
  @Path("audit")
  @Produces(AuditPages.NDJSON)
  @Blocking
  public Response audit(
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("limit") String limit,
      @QueryParam("after") String after) {
    return audit.audit(from, to, limit, after);
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
    return audit.verify();
  }
}
