package io.sentinel.api;

import io.sentinel.runtime.Gateway;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /api/v1/shadow} (docs/shadow.md, docs/api.md): the shadow revision running beside the
 * active set and how it differs, the same summary as the retained {@code ruleset/shadow}; {@code
 * {"state": "none"}} when there is none. A read: no token, like the other reads.
 */
@Path("/api/v1")
public class ShadowView {
  @Inject Gateway gateway;

  @GET
  @Path("shadow")
  @Produces(MediaType.APPLICATION_JSON)
  public Response shadow() {
    try {
      return Response.ok(gateway.shadowSummary().encode()).build();
    } catch (IllegalStateException e) {
      return Response.status(503)
          .type(MediaType.APPLICATION_JSON)
          .entity(new ApiError(503, "", e.getMessage()).json().encode())
          .build();
    }
  }
}
