package io.sentinel.site.rules;

import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.site.yaml.ShapeParts;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;

/** The checks both rule forms make, written once: ids, pulse targets, claimed points. */
public final class RuleChecks {
  private static final Pattern RULE_ID = Pattern.compile(ShapeParts.ID_PATTERN);

  private RuleChecks() {}

  /** Lower-case words joined by - _ or . (RULE-003, DSL-001). */
  public static boolean validId(String id) {
    return RULE_ID.matcher(id).matches();
  }

  /**
   * A pulse's target and length, in both rule forms: the point must be bool (RULE-064) and the
   * pulse no longer than its pulse_max (RULE-066). {@code written} is the duration as the rule
   * wrote it. False when either check failed.
   */
  public static boolean pulse(
      YamlFile yaml,
      Node pointAt,
      Node durationAt,
      PointSpec point,
      Optional<Duration> duration,
      String written,
      String id) {
    boolean ok = true;
    if (!(point.type() instanceof PointType.Bool)) {
      yaml.error(
          pointAt,
          RuleCodes.RULE_064,
          id,
          "pulse point " + point.id() + " must be bool, it is " + point.type().name());
      ok = false;
    }
    if (duration.isPresent()
        && point.pulseMax().filter(max -> duration.get().compareTo(max) > 0).isPresent()) {
      yaml.error(
          durationAt,
          RuleCodes.RULE_066,
          id,
          "pulse of " + written + " is longer than " + point.id() + "'s pulse_max");
      ok = false;
    }
    return ok;
  }

  /** The point a claim or pulse names: in the registry (RULE-050) and claimable (RULE-051). */
  public static Optional<PointSpec> claimTarget(
      YamlFile yaml, Registry registry, Fields c, String id, String what) {
    if (!c.has("point")) {
      yaml.error(c.node(), RuleCodes.RULE_050, id, what + " needs a point");
      return Optional.empty();
    }
    Node n = c.get("point").orElseThrow();
    return yaml.text(n, what + " point", id)
        .flatMap(
            pid -> {
              Optional<PointSpec> p = registry.find(pid);
              if (p.isEmpty()) {
                yaml.error(
                    n,
                    RuleCodes.RULE_050,
                    id,
                    what + " point '" + pid + "' is not in the registry");
                return Optional.empty();
              }
              if (!p.get().direction().claimable()) {
                yaml.error(
                    n,
                    RuleCodes.RULE_051,
                    id,
                    what
                        + " point '"
                        + pid
                        + "' is an input (direction in); only out and inout points can be claimed");
                return Optional.empty();
              }
              return p;
            });
  }
}
