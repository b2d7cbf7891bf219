package io.sentinel.api;

import io.sentinel.runtime.Gateway;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.store.Trends;
import io.smallrye.common.annotation.Blocking;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code GET /api/v1/points/<id>/history?from=&to=&step=}: a point's trend from the observation
 * log, downsampled in PostgreSQL to one bucket per {@code step} (min, max, avg, last, count), with
 * the claim changes and commands of the same window for the page's plot (docs/page.md). Bounded: at
 * most {@link #MAX_BUCKETS} buckets and {@link #MAX_MARKS} marks of each kind.
 */
@Path("/api/v1/points/{id}/history")
public class PointHistory {
  static final int MAX_BUCKETS = 1000;
  static final int DEFAULT_BUCKETS = 120;
  static final int MAX_MARKS = 500;
  static final Duration DEFAULT_WINDOW = Duration.ofHours(1);
  static final Duration MIN_STEP = Duration.ofSeconds(1);

  @Inject Gateway gateway;
  @Inject GatewayAccess access;

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @Blocking
  public String history(
      @PathParam("id") String id,
      @QueryParam("from") String from,
      @QueryParam("to") String to,
      @QueryParam("step") String step) {
    Site site = access.site();
    if (!site.ruleSet().registry().points().containsKey(id)
        && !site.ruleSet().derived().contains(id)) {
      throw ApiError.notFound("id", "no point " + id + " in the registry");
    }
    Instant toAt = GatewayAccess.instant("to", to).orElseGet(Instant::now);
    Instant fromAt = GatewayAccess.instant("from", from).orElse(toAt.minus(DEFAULT_WINDOW));
    if (!toAt.isAfter(fromAt)) {
      throw ApiError.badRequest("to", "to (" + toAt + ") must lie after from (" + fromAt + ")");
    }
    Duration window = Duration.between(fromAt, toAt);
    Duration stepBy = step(step, window);
    long buckets = (window.toNanos() + stepBy.toNanos() - 1) / stepBy.toNanos();
    if (buckets > MAX_BUCKETS) {
      throw ApiError.badRequest(
          "step",
          "step "
              + step
              + " gives "
              + buckets
              + " buckets over "
              + window
              + "; at most "
              + MAX_BUCKETS
              + ": use a step of at least "
              + Duration.ofSeconds(window.toSeconds() / MAX_BUCKETS + 1)
                  .toString()
                  .substring(2)
                  .toLowerCase(java.util.Locale.ROOT));
    }
    try {
      Trends trends = access.trends();
      return new JsonObject()
          .put("point", id)
          .put("from", fromAt.toString())
          .put("to", toAt.toString())
          .put("step_seconds", stepBy.toNanos() / 1e9)
          .put("buckets", trends.buckets(id, fromAt, toAt, stepBy))
          .put("marks", trends.marks(id, fromAt, toAt, MAX_MARKS))
          .encode();
    } catch (ApiError e) {
      throw e;
    } catch (Exception e) {
      throw new ApiError(503, "", "the observation log cannot be read now: " + e.getMessage());
    }
  }

  /** A duration as rule files write one ({@code 30s}, {@code 5m}); unset, the window over 120. */
  private static Duration step(String text, Duration window) {
    if (text == null || text.isBlank()) {
      Duration d = window.dividedBy(DEFAULT_BUCKETS);
      return d.compareTo(MIN_STEP) < 0 ? MIN_STEP : Duration.ofSeconds((d.toMillis() + 999) / 1000);
    }
    Duration d =
        YamlFile.parseDuration(text.trim())
            .orElseThrow(
                () ->
                    ApiError.badRequest(
                        "step", "step '" + text + "' is not a duration (write e.g. 10s, 5m, 1h)"));
    if (d.compareTo(MIN_STEP) < 0) {
      throw ApiError.badRequest("step", "step must be at least 1s, not " + text);
    }
    return d;
  }
}
