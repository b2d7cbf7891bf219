package io.sentinel.api;

import io.sentinel.passlog.Explanation;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.wire.ExplanationJson;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code GET /api/v1/points/<id>/why[?at=T]}: why an output is in its state ({@link Explanation},
 * docs/api.md): from the running engine and its command plane, or with {@code at} from the log as
 * {@code sentinel why --at} reads it. The operator page's "why" panel shows the same body.
 */
@Path("/api/v1/points/{id}/why")
public class PointWhy {
  @Inject Gateway gateway;
  @Inject GatewayAccess access;

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public String why(@PathParam("id") String id, @QueryParam("at") String at) {
    EngineLoop loop = access.loop();
    Optional<Instant> past = GatewayAccess.instant("at", at);
    boolean known =
        loop.inspectEngine(e -> e.points().indexOf(id) >= 0).toCompletableFuture().join();
    if (!known) {
      throw ApiError.notFound("id", "no point " + id + " in the registry");
    }
    if (past.isPresent()) {
      try {
        return ExplanationJson.of(gateway.history().why(id, past.get())).encode();
      } catch (Exception e) {
        throw new ApiError(503, "", "the log cannot be read now: " + e.getMessage());
      }
    }
    // The plane's state first, then the engine's, each on the engine's context.
    var commands = loop.inspect(plane -> plane.status(id)).toCompletableFuture().join();
    return loop.inspectEngine(e -> ExplanationJson.of(Explanation.of(e, id, commands)).encode())
        .toCompletableFuture()
        .join();
  }
}
