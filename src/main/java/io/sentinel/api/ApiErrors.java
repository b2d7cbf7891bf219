package io.sentinel.api;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * How every resource of the API answers a failure (docs/api.md), once: global mappers, since this
 * class is no resource. An {@link ApiError} as its JSON; anything else a 500 that names no internal
 * detail (no exception text, no SQL), the detail in the gateway's log under SEN-103
 * (docs/hostile-input.md).
 */
public final class ApiErrors {
  private static final Logger LOG = Logger.getLogger("io.sentinel.api");

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
    return unexpected(e.getCause());
  }

  @ServerExceptionMapper
  public Response unexpected(Throwable e) {
    if (e instanceof jakarta.ws.rs.WebApplicationException w) {
      return w.getResponse();
    }
    LOG.errorf(e, "SEN-103 an API request failed unexpectedly");
    return refused(new ApiError(500, "", "internal error: the gateway's log says more"));
  }
}
