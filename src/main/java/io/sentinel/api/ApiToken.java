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
 * SENTINEL_API_TOKEN}). Without one configured they refuse every request (403), and the gateway
 * says so at start. Compared in constant time.
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
              + " resuming rules and operator overrides answer 403");
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

  /**
   * Lets a mutating request through, or refuses it: 403 when no token is configured, 401 when the
   * {@code Authorization} header is missing, not a bearer token, or not the token.
   */
  public void require(String authorization) {
    Optional<byte[]> expected = configured();
    if (expected.isEmpty()) {
      throw new ApiError(
          403,
          "Authorization",
          "this gateway has no API token (set sentinel.api.token / SENTINEL_API_TOKEN): it takes"
              + " no changes over HTTP");
    }
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw new ApiError(
          401, "Authorization", "send the API token as 'Authorization: Bearer <token>'");
    }
    byte[] given = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
    // Digests of equal length, compared by MessageDigest.isEqual, which takes the same time
    // whatever the position of the first difference: neither the token nor its length leaks.
    if (!MessageDigest.isEqual(sha256(expected.get()), sha256(given))) {
      throw new ApiError(401, "Authorization", "the bearer token is not this gateway's API token");
    }
  }
}
