package io.sentinel.api;

import io.sentinel.engine.Engine;
import io.sentinel.rule.Rule;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.site.Site;
import io.sentinel.store.Trends;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** What every part of the API needs of the gateway: its engine loop and site, or a 503. */
@Singleton
class GatewayAccess {
  @Inject Gateway gateway;

  Gateway gateway() {
    return gateway;
  }

  EngineLoop loop() {
    EngineLoop loop = gateway.loop();
    if (loop == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return loop;
  }

  Site site() {
    Site site = gateway.site();
    if (site == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return site;
  }

  /** The log's reader of trends, or a 503 while the store is not open. */
  Trends trends() {
    try {
      return gateway.history().trends();
    } catch (IllegalStateException e) {
      throw new ApiError(503, "", "the log cannot be read now: " + e.getMessage());
    }
  }

  /** An optional instant parameter, or a 400 naming {@code field}. */
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

  /**
   * The rule as the engine runs it: the active revision's, which a push may have replaced since the
   * site's files were read. On the engine's context.
   */
  static Rule ruleIn(Engine e, String id) {
    return e.ruleSet()
        .rule(id)
        .orElseThrow(() -> ApiError.notFound("id", "no rule " + id + " in the active rule set"));
  }

  static int pointIndex(Engine e, String id) {
    int i = e.points().indexOf(id);
    if (i < 0) {
      throw ApiError.notFound("id", "no point " + id + " in the registry");
    }
    return i;
  }
}
