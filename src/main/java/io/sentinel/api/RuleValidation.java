package io.sentinel.api;

import io.sentinel.door.Door;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.YamlFile;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * {@code POST rules:validate}: a rule file or a revision document checked against this gateway's
 * registry, as {@code sentinel validate} and the {@code ruleset} topic check them.
 */
@Singleton
class RuleValidation {
  private static final Logger LOG = Logger.getLogger("io.sentinel.api");

  /** A check that takes longer is answered 503 (docs/hostile-input.md). */
  static final Duration TIME_LIMIT = Duration.ofSeconds(10);

  /** Checks at once, at most: a flood of requests waits at the door, not in memory. */
  private static final int AT_ONCE = 2;

  private final Semaphore slots = new Semaphore(AT_ONCE);
  private final ExecutorService checker =
      Executors.newFixedThreadPool(
          AT_ONCE,
          r -> {
            Thread t = new Thread(r, "sentinel-validate");
            t.setDaemon(true);
            return t;
          });

  @Inject GatewayAccess access;
  @Inject Bodies bodies;
  @Inject ApiToken token;

  Response validate(String file, String contentType, String authorization, byte[] raw) {
    if (contentType != null && !readableAsYaml(contentType)) {
      throw new ApiError(
          415,
          "Content-Type",
          "send the rule file as application/yaml, application/json or text/plain, not "
              + Door.printable(contentType, 80));
    }
    int limit =
        token.authenticated(authorization)
            ? Bodies.VALIDATE_AUTHENTICATED
            : Bodies.VALIDATE_ANONYMOUS;
    String body = bodies.text(raw, limit);
    if (body.isBlank()) {
      throw ApiError.badRequest("body", "empty body: send a rule file (YAML or JSON)");
    }
    String name =
        file == null || file.isBlank() ? "request.yaml" : bodies.line(file.trim(), "file");
    if (!slots.tryAcquire()) {
      throw new ApiError(
          503, "", "busy: " + AT_ONCE + " validations are under way; try again in a moment");
    }
    Future<Response> check;
    try {
      check = checker.submit(() -> check(name, body));
    } catch (RuntimeException e) {
      slots.release();
      throw e;
    }
    try {
      return check.get(TIME_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      check.cancel(true);
      LOG.warnf("SEN-104 validating %s took over %d s: answered 503", name, TIME_LIMIT.toSeconds());
      throw new ApiError(
          503, "body", "the check took longer than " + TIME_LIMIT.toSeconds() + " s: refused");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiError(503, "", "the gateway is stopping");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ApiError a) {
        throw a;
      }
      LOG.errorf(e.getCause(), "SEN-105 validating %s failed", name);
      throw new ApiError(500, "", "internal error: the gateway's log says more");
    }
  }

  private Response check(String name, String body) {
    try {
      if (isRevision(name, body)) {
        return revision(name, body);
      }
      Site.Checked checked = access.site().checkRules(name, body);
      return validation("rules", checked.rules().size(), counted(checked.problems()));
    } catch (StackOverflowError e) {
      // The door bounds depth before the parser; this is the backstop (docs/hostile-input.md).
      throw new ApiError(422, "body", "too-deep: the document is nested too deeply to check");
    } finally {
      slots.release();
    }
  }

  /**
   * A revision document (CONTRACT section 4), checked whole as the {@code ruleset} topic checks one
   * (the same {@link RevisionDocument#check}) against this gateway's registry, derived points and
   * site name. Its signature is not judged here: whether a key is trusted is the gateway's decision
   * at activation (docs/revisions.md).
   */
  private Response revision(String name, String body) {
    RevisionDocument.Checked checked =
        RevisionDocument.check(name, body, access.site().basis(), access.gateway().siteName());
    return validation(
        "revision",
        checked.ruleSet().map(r -> r.rules().size()).orElse(0),
        counted(checked.problems()));
  }

  /** The door's refusals among the problems, counted under their reasons like MQTT's. */
  private List<Problem> counted(List<Problem> problems) {
    for (Problem p : problems) {
      if (p.isError()) {
        YamlFile.doorFlaw(p.code()).ifPresent(f -> access.gateway().refusedAtDoor(f));
      }
    }
    return problems;
  }

  static Response validation(String kind, int rules, List<Problem> problems) {
    JsonObject out = io.sentinel.wire.Payloads.validationJson(kind, rules, problems);
    return Response.status(out.getBoolean("valid") ? 200 : 422)
        .type(MediaType.APPLICATION_JSON)
        .entity(out.encode())
        .build();
  }

  private static boolean isRevision(String name, String body) {
    Optional<Node> root = new YamlFile(name, new io.sentinel.site.yaml.Problems()).parse(body);
    return root.isPresent()
        && root.get() instanceof MappingNode m
        && m.getValue().stream()
            .anyMatch(
                t ->
                    t.getKeyNode() instanceof org.snakeyaml.engine.v2.nodes.ScalarNode k
                        && k.getValue().equals("revision"));
  }

  private static boolean readableAsYaml(String contentType) {
    String type = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return Set.of(
            "application/yaml",
            "application/x-yaml",
            "text/yaml",
            "text/x-yaml",
            "application/json",
            "text/plain",
            "application/octet-stream")
        .contains(type);
  }
}
