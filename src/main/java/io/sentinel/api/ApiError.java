package io.sentinel.api;

import io.vertx.core.json.JsonObject;

/**
 * A request the API refuses: the HTTP status, the request field at fault ({@code body}, a query
 * parameter, a body key, {@code id} for a path's point or rule, {@code Authorization}) and a
 * sentence saying what is wrong. Rendered as {@code {"error": ..., "field": ..., "status": ...}}.
 */
public final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String field;

  public ApiError(int status, String field, String message) {
    super(message, null, false, false);
    this.status = status;
    this.field = field;
  }

  public static ApiError badRequest(String field, String message) {
    return new ApiError(400, field, message);
  }

  public static ApiError notFound(String field, String message) {
    return new ApiError(404, field, message);
  }

  public int status() {
    return status;
  }

  public String field() {
    return field;
  }

  public JsonObject json() {
    return new JsonObject().put("error", getMessage()).put("field", field).put("status", status);
  }
}
