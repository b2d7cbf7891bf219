package io.sentinel.site.rules;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.point.Value;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Rule.RequiredQuality;
import io.sentinel.rule.Warmup;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlCodes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * The policies both rule forms write the same way: on_input_loss and its hold_max, warmup and
 * required_quality. One reading, one set of checks (RULE-040..047), for native and DSL rules.
 */
public final class RulePolicies {
  private static final Pattern DEADLINE = Pattern.compile("deadline\\((.*)\\)");
  private static final Pattern ASSERT = Pattern.compile("assert\\((.*)\\)");

  private final YamlFile yaml;
  private final Registry registry;

  public RulePolicies(YamlFile yaml, Registry registry) {
    this.yaml = yaml;
    this.registry = registry;
  }

  /**
   * {@code on_input_loss}: release, hold (bounded by hold_max, RULE-040; hold_max means nothing
   * without hold, RULE-041) or an asserted value that fits every claimed point.
   */
  public Optional<InputLoss> inputLoss(Fields f, String id, List<ClaimSpec> claims) {
    boolean hold =
        f.get("on_input_loss")
            .filter(n -> n instanceof ScalarNode s && s.getValue().equals("hold"))
            .isPresent();
    if (f.has("hold_max") && !hold) {
      yaml.warning(
          f.keyNode("hold_max"),
          RuleCodes.RULE_041,
          id,
          "hold_max has no effect unless on_input_loss is hold");
    }
    if (!f.has("on_input_loss")) {
      yaml.error(
          f.node(),
          RuleCodes.RULE_042,
          id,
          "on_input_loss is missing: every rule says release, hold or {assert: value}");
      return Optional.empty();
    }
    Node n = f.get("on_input_loss").orElseThrow();
    Optional<Node> assertNode = Optional.empty();
    if (n instanceof MappingNode) {
      assertNode =
          yaml.mapping(n, "on_input_loss", id, RuleShapes.INPUT_LOSS_ASSERT.keys())
              .flatMap(m -> m.get("assert"));
      if (assertNode.isEmpty()) {
        yaml.error(n, RuleCodes.RULE_043, id, "on_input_loss is release, hold or {assert: value}");
        return Optional.empty();
      }
    } else if (n instanceof ScalarNode s) {
      String t = s.getValue();
      Matcher m = ASSERT.matcher(t);
      if (t.equals("release")) {
        return Optional.of(new InputLoss.Release());
      }
      if (hold) {
        return hold(f, id);
      }
      if (!m.matches()) {
        yaml.error(
            n,
            RuleCodes.RULE_043,
            id,
            "on_input_loss '" + t + "' is not release, hold or {assert: value}");
        return Optional.empty();
      }
      assertNode =
          Optional.of(
              new ScalarNode(
                  s.getTag(),
                  true,
                  m.group(1).trim(),
                  ScalarStyle.PLAIN,
                  s.getStartMark(),
                  s.getEndMark()));
    } else {
      yaml.error(n, RuleCodes.RULE_043, id, "on_input_loss is release, hold or {assert: value}");
      return Optional.empty();
    }
    Optional<Value> value = valueForAllClaims(assertNode.get(), claims, "on_input_loss assert", id);
    if (claims.isEmpty()) {
      yaml.error(n, RuleCodes.RULE_044, id, "on_input_loss assert needs claims to assert on");
    }
    return value.map(InputLoss.Assert::new);
  }

  private Optional<InputLoss> hold(Fields f, String id) {
    if (!f.has("hold_max")) {
      yaml.error(
          f.keyNode("on_input_loss"),
          RuleCodes.RULE_040,
          id,
          "on_input_loss: hold needs a bound: add hold_max (e.g. hold_max: 30m), after which it"
              + " degrades to release");
      return Optional.empty();
    }
    return f.get("hold_max")
        .flatMap(n -> yaml.duration(n, "hold_max", id))
        .map(InputLoss.Hold::new);
  }

  /** A value written once and applied to every claimed point must fit each of them. */
  Optional<Value> valueForAllClaims(Node n, List<ClaimSpec> claims, String field, String id) {
    Optional<Value> value = Optional.empty();
    for (ClaimSpec c : claims) {
      PointSpec p = registry.find(c.pointId()).orElseThrow();
      Optional<Value> v = ValueReader.read(yaml, n, p, field, id);
      if (v.isEmpty()) {
        return Optional.empty();
      }
      value = v;
    }
    return value;
  }

  public RequiredQuality requiredQuality(Fields f, String id) {
    Optional<String> t =
        f.get("required_quality").flatMap(n -> yaml.text(n, "required_quality", id));
    if (t.isEmpty() || t.get().equals("live")) {
      return RequiredQuality.LIVE;
    }
    if (t.get().equals("live_or_stale")) {
      return RequiredQuality.LIVE_OR_STALE;
    }
    yaml.error(
        f.get("required_quality").orElseThrow(),
        RuleCodes.RULE_045,
        id,
        "required_quality '" + t.get() + "' is not live or live_or_stale");
    return RequiredQuality.LIVE;
  }

  public Optional<Warmup> warmup(Fields f, String id) {
    if (!f.has("warmup")) {
      yaml.error(
          f.node(),
          RuleCodes.RULE_046,
          id,
          "warmup is missing: all_inputs_live, all_inputs_known or deadline(60s)");
      return Optional.empty();
    }
    Node n = f.get("warmup").orElseThrow();
    return yaml.text(n, "warmup", id)
        .flatMap(
            t -> {
              if (t.equals("all_inputs_live")) {
                return Optional.of(new Warmup.AllInputsLive());
              }
              if (t.equals("all_inputs_known")) {
                return Optional.of(new Warmup.AllInputsKnown());
              }
              Matcher m = DEADLINE.matcher(t);
              if (m.matches()) {
                Optional<Duration> d = YamlFile.parseDuration(m.group(1));
                if (d.isPresent() && !d.get().isZero()) {
                  return Optional.of(new Warmup.Deadline(d.get()));
                }
                yaml.error(
                    n,
                    YamlCodes.YAML_020,
                    id,
                    "warmup deadline '" + m.group(1) + "' is not a duration above zero");
                return Optional.empty();
              }
              yaml.error(
                  n,
                  RuleCodes.RULE_047,
                  id,
                  "warmup '"
                      + t
                      + "' is not all_inputs_live, all_inputs_known or deadline(<duration>)");
              return Optional.empty();
            });
  }
}
