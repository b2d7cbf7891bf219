package io.sentinel.site.dsl;

import io.sentinel.derived.DerivedPoint;
import io.sentinel.expr.Condition;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Rule.RequiredQuality;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import io.sentinel.site.rules.DefinitionHash;
import io.sentinel.site.rules.RuleChecks;
import io.sentinel.site.rules.RulePolicies;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Compiles the rule DSL of seed 001 ({@code rule:, priority:, when: all|any, then:}) onto the same
 * engine as the native form: comparisons become expressions of the one expression language (one
 * definition of types, units and absent values), built-ins become derived points, outputs become
 * claims in the band the priority maps to, and pulse, fade and emit become once-per-firing actions.
 * docs/dsl.md says what each construct compiles to.
 */
public final class DslLoader {
  // The keys each mapping takes: declared once, in DocumentShapes (also the JSON Schema's source).
  private static final Set<String> RULE_KEYS = RuleShapes.DSL_RULE.keys();

  private final YamlFile yaml;

  /** In an instance of a {@code zone: court.*} rule: the zone it is bound to. */
  private final String boundZone;

  /** The scope of the rule (instance) of a given id. */
  private final Function<String, DslScope> scope;

  private DslLoader(YamlFile yaml, String boundZone, Function<String, DslScope> scope) {
    this.yaml = yaml;
    this.boundZone = boundZone;
    this.scope = scope;
  }

  /**
   * One DSL rule, or one instance per matching zone when it has a {@code zone:} condition. Derived
   * points its built-ins need are added to {@code generated} (shared by the whole site, so two
   * rules reading {@code rolling_avg(x, 5s)} read one point).
   */
  public static List<Rule> load(
      YamlFile yaml,
      Node node,
      Registry registry,
      ZoneId timeZone,
      List<String> zones,
      Map<String, DerivedPoint> generated) {
    Optional<Node> zoneNode = zoneCondition(node);
    if (zoneNode.isEmpty()) {
      return new DslLoader(
              yaml, null, id -> new DslScope(yaml, registry, timeZone, generated, null, null, id))
          .rule(node)
          .map(List::of)
          .orElse(List.of());
    }
    Optional<String> pattern = yaml.text(zoneNode.get(), "zone", "");
    if (pattern.isEmpty()) {
      return List.of();
    }
    List<Rule> out = new ArrayList<>();
    int instances = 0;
    for (String z : zones) {
      Optional<String> bound = starOf(pattern.get(), z);
      if (bound.isPresent()) {
        instances++;
        new DslLoader(
                yaml,
                z,
                id -> new DslScope(yaml, registry, timeZone, generated, z, bound.get(), id))
            .rule(node)
            .ifPresent(out::add);
      }
    }
    if (instances == 0) {
      yaml.error(
          zoneNode.get(),
          DslCodes.DSL_041,
          "",
          "zone "
              + pattern.get()
              + " matches none of the site's zones (site.yaml zones: "
              + zones
              + ")");
    }
    return out;
  }

  /** What the * of a zone pattern stands for in a zone ({@code court.*} in {@code court.3}: 3). */
  private static Optional<String> starOf(String pattern, String zone) {
    String[] p = pattern.split("\\.");
    String[] z = zone.split("\\.");
    if (p.length != z.length) {
      return Optional.empty();
    }
    String star = "";
    for (int i = 0; i < p.length; i++) {
      if (p[i].equals("*")) {
        star = z[i];
      } else if (!p[i].equals(z[i])) {
        return Optional.empty();
      }
    }
    return Optional.of(star);
  }

  private static Optional<Node> zoneCondition(Node node) {
    if (!(node instanceof MappingNode m)) {
      return Optional.empty();
    }
    for (var t : m.getValue()) {
      if (t.getKeyNode() instanceof ScalarNode k
          && k.getValue().equals("when")
          && t.getValueNode() instanceof MappingNode w) {
        for (var branch : w.getValue()) {
          if (branch.getValueNode() instanceof org.snakeyaml.engine.v2.nodes.SequenceNode seq) {
            for (Node c : seq.getValue()) {
              if (c instanceof MappingNode cm) {
                for (var ct : cm.getValue()) {
                  if (ct.getKeyNode() instanceof ScalarNode ck && ck.getValue().equals("zone")) {
                    return Optional.of(ct.getValueNode());
                  }
                }
              }
            }
          }
        }
      }
    }
    return Optional.empty();
  }

  private static String writtenId(Node node) {
    return YamlFile.scalarOf(node, "rule");
  }

  public static boolean isDsl(Node node) {
    return node instanceof MappingNode m
        && m.getValue().stream()
            .anyMatch(t -> t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("rule"));
  }

  private Optional<Rule> rule(Node node) {
    Optional<Fields> maybe = yaml.mapping(node, "rule", writtenId(node), RULE_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    String written = f.get("rule").flatMap(n -> yaml.text(n, "rule", "")).orElse("");
    String id = boundZone == null ? written : written + "@" + boundZone;
    DslScope scope = this.scope.apply(id);
    DslOutputs outputs = new DslOutputs(scope);
    int errors = errorCount();
    if (!RuleChecks.validId(written)) {
      yaml.error(
          node,
          DslCodes.DSL_001,
          id,
          "rule: an id is lower-case words joined by - _ or . (found '" + id + "')");
    }
    Optional<Integer> priority = priority(f, id);
    Optional<Condition> when = new DslConditions(scope).when(f);
    List<ClaimSpec> claims = new ArrayList<>();
    List<ActionSpec> actions = new ArrayList<>();
    List<Condition> holdUntil = new ArrayList<>();
    if (!f.has("then")) {
      yaml.error(node, DslCodes.DSL_030, id, "then is missing: the outputs the rule drives");
    }
    f.get("then")
        .flatMap(n -> yaml.sequence(n, "then", id))
        .ifPresent(
            items -> items.forEach(item -> outputs.output(item, claims, actions, holdUntil)));
    if (errorCount() > errors || priority.isEmpty() || when.isEmpty()) {
      return Optional.empty();
    }
    Band band =
        priority.get() >= 90
            ? Band.SAFETY
            : priority.get() >= 50 ? Band.ORCHESTRATION : Band.AMBIENT;
    // The native policies, read as the native loader reads them, with the DSL's defaults.
    RulePolicies policies = new RulePolicies(yaml, scope.registry);
    InputLoss loss =
        f.has("on_input_loss")
            ? policies.inputLoss(f, id, claims).orElse(null)
            : new InputLoss.Release();
    Warmup warmup =
        f.has("warmup") ? policies.warmup(f, id).orElse(null) : new Warmup.AllInputsLive();
    RequiredQuality quality = policies.requiredQuality(f, id);
    if (loss == null || warmup == null || errorCount() > errors) {
      return Optional.empty();
    }
    Map<String, String> inputIds = new LinkedHashMap<>();
    scope.inputs.forEach((name, spec) -> inputIds.put(name, spec.id()));
    return Optional.of(
        new Rule(
            id,
            band,
            priority.get(),
            inputIds,
            new Trigger.OnTransition(List.copyOf(inputIds.keySet())),
            when.get(),
            claims,
            actions,
            loss,
            quality,
            warmup,
            Optional.empty(),
            f.get("enabled").flatMap(n -> yaml.bool(n, "enabled", id)).orElse(true),
            new SourceRef(yaml.file(), YamlFile.line(node)),
            DefinitionHash.of(node),
            holdUntil.stream().findFirst()));
  }

  private int errorCount() {
    return (int) yaml.problems().sorted().stream().filter(Problem::isError).count();
  }

  private Optional<Integer> priority(Fields f, String id) {
    Optional<Double> p = f.get("priority").flatMap(n -> yaml.number(n, "priority", id));
    if (!f.has("priority")) {
      yaml.error(f.node(), DslCodes.DSL_002, id, "priority (1 to 100) is missing");
    } else if (p.isPresent() && (p.get() < 1 || p.get() > 100 || p.get() != Math.rint(p.get()))) {
      yaml.error(
          f.get("priority").orElseThrow(),
          DslCodes.DSL_002,
          id,
          "priority is a whole number from 1 to 100");
      return Optional.empty();
    }
    return p.map(Double::intValue);
  }
}
