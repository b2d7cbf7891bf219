package io.sentinel.api;

import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.YamlFile;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * {@code POST rules:validate}: a rule file or a revision document checked against this gateway's
 * registry, as {@code sentinel validate} and the {@code ruleset} topic check them.
 */
@Singleton
class RuleValidation {
  @Inject GatewayAccess access;

  Response validate(String file, String contentType, String body) {
    if (contentType != null && !readableAsYaml(contentType)) {
      throw new ApiError(
          415,
          "Content-Type",
          "send the rule file as application/yaml, application/json or text/plain, not "
              + contentType);
    }
    if (body == null || body.isBlank()) {
      throw ApiError.badRequest("body", "empty body: send a rule file (YAML or JSON)");
    }
    String name = file == null || file.isBlank() ? "request.yaml" : file.trim();
    if (isRevision(name, body)) {
      return revision(name, body);
    }
    Site.Checked checked = access.site().checkRules(name, body);
    return validation("rules", checked.rules().size(), checked.problems());
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
        "revision", checked.ruleSet().map(r -> r.rules().size()).orElse(0), checked.problems());
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
