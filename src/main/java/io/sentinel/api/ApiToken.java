package io.sentinel.api;

import io.quarkus.runtime.StartupEvent;
import io.sentinel.config.SentinelConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The bearer token that mutating endpoints require ({@code sentinel.api.token}, {@code
 * SENTINEL_API_TOKEN}): 401 without a token, 403 with a wrong one. Without one configured they
 * refuse every request, and the gateway says so at start. Compared in constant time.
 */
@ApplicationScoped
public class ApiToken {
  private static final Logger LOG = Logger.getLogger("io.sentinel.api");
  private static final String BEARER = "Bearer ";

  Optional<String> token = Optional.empty();

  @Inject
  void configure(SentinelConfig config) {
    token = config.api().token();
  }

  void onStart(@Observes StartupEvent event) {
    if (configured().isEmpty()) {
      LOG.info(
          "SEN-API-001 no sentinel.api.token (SENTINEL_API_TOKEN): the HTTP API is read-only;"
              + " resuming rules and operator overrides are refused (401 without a token, 403 with one)");
    }
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private Optional<byte[]> configured() {
    return token
        .map(String::trim)
        .filter(t -> !t.isEmpty())
        .map(t -> t.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether the request carries this gateway's token (a larger body is then allowed). */
  public boolean authenticated(String authorization) {
    try {
      require(authorization);
      return true;
    } catch (ApiError e) {
      return false;
    }
  }

  /**
   * Lets a mutating request through, or refuses it: 401 when the {@code Authorization} header is
   * missing or not a bearer token (the request is not authenticated), 403 when it carries a token
   * that is not this gateway's, or any token while the gateway has none configured (issue 17; a
   * missing token on a gateway without one was 403 before).
   */
  public void require(String authorization) {
    Optional<byte[]> expected = configured();
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
        || authorization.substring(BEARER.length()).isBlank()) {
      throw new ApiError(
          401,
          "Authorization",
          expected.isEmpty()
              ? "send the API token as 'Authorization: Bearer <token>'; this gateway has none"
                  + " configured (set sentinel.api.token / SENTINEL_API_TOKEN): it takes no"
                  + " changes over HTTP"
              : "send the API token as 'Authorization: Bearer <token>'");
    }
    if (expected.isEmpty()) {
      throw new ApiError(
          403,
          "Authorization",
          "this gateway has no API token (set sentinel.api.token / SENTINEL_API_TOKEN): it takes"
              + " no changes over HTTP");
    }
    byte[] given = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
    // Digests of equal length, compared by MessageDigest.isEqual, which takes the same time
    // whatever the position of the first difference: neither the token nor its length leaks.
    if (!MessageDigest.isEqual(sha256(expected.get()), sha256(given))) {
      throw new ApiError(403, "Authorization", "the bearer token is not this gateway's API token");
    }
  }
}
