package io.sentinel.api;

import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.store.Trends;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.CompletionException;

/**
 * What the operator page's resources ({@link StatusView}, {@link PointHistory}, {@link
 * EventStream}) share: the running loop and the log's reader, or a 503 saying why not, and their
 * errors rendered as the rest of the API renders them (docs/api.md).
 */
final class Reads {
  private Reads() {}

  static EngineLoop loop(Gateway gateway) {
    EngineLoop loop = gateway.loop();
    if (loop == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return loop;
  }

  static Trends trends(Gateway gateway) {
    try {
      return gateway.history().trends();
    } catch (IllegalStateException e) {
      throw new ApiError(503, "", "the log cannot be read now: " + e.getMessage());
    }
  }

  static Optional<Instant> instant(String field, String text) {
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

  static Response refused(ApiError e) {
    return Response.status(e.status())
        .type(MediaType.APPLICATION_JSON)
        .entity(e.json().encode())
        .build();
  }

  static Response failed(CompletionException e) {
    if (e.getCause() instanceof ApiError a) {
      return refused(a);
    }
    return refused(new ApiError(503, "", String.valueOf(e.getCause())));
  }
}
