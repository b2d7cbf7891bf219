package io.sentinel.site.rules;

import io.sentinel.expr.Compiled;
import io.sentinel.expr.ExpressionCompiler;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Interlock;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Rule.RequiredQuality;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads one native rule (seed 000's rule shape) and checks it against the registry. Its trigger,
 * actions, policies and interlock class are read by {@link TriggerReader}, {@link ActionReader},
 * {@link RulePolicies} (shared with the DSL) and {@link Interlocks}.
 */
public final class NativeRuleLoader {
  // The keys each mapping takes: declared once, in DocumentShapes (also the JSON Schema's source).
  private static final Set<String> RULE_KEYS = RuleShapes.RULE.keys();

  private final YamlFile yaml;
  private final Registry registry;
  private final RulePolicies policies;
  private final TriggerReader triggers;
  private final ActionReader actionReader;
  private final Interlocks interlocks;

  /** Whether the rule being read named an input point the registry lacks. */
  private boolean unresolvedInputs;

  public NativeRuleLoader(YamlFile yaml, Registry registry) {
    this.yaml = yaml;
    this.registry = registry;
    this.policies = new RulePolicies(yaml, registry);
    this.triggers = new TriggerReader(yaml);
    this.actionReader = new ActionReader(yaml, registry);
    this.interlocks = new Interlocks(yaml, policies);
  }

  /** One native rule; empty (with its problems reported) when it is not valid. */
  public Optional<Rule> rule(Node node) {
    String id = ruleId(node);
    Optional<Fields> maybe = yaml.mapping(node, "rule", id, RULE_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    int errorsBefore = errorCount();
    if (!f.has("id")) {
      yaml.error(node, RuleCodes.RULE_002, "", "a rule needs an id");
    } else if (!RuleChecks.validId(id)) {
      yaml.error(
          f.get("id").orElseThrow(),
          RuleCodes.RULE_003,
          id,
          "an id is lower-case words joined by - _ or . (found '" + id + "')");
    }
    Optional<Band> band = band(f, id);
    LinkedHashMap<String, PointSpec> inputs = inputs(f, id);
    Trigger trigger = triggers.trigger(f, id, inputs);
    Optional<io.sentinel.expr.Condition> when = when(f, id, inputs);
    List<ClaimSpec> claims = claims(f, id);
    List<ActionSpec> actions = actionReader.actions(f, id, inputs);
    Optional<InputLoss> loss = policies.inputLoss(f, id, claims);
    RequiredQuality required = policies.requiredQuality(f, id);
    policies.unreachableQualities(f, id, trigger, required);
    Optional<Warmup> warmup = policies.warmup(f, id);
    Optional<Interlock> interlock = interlocks.interlock(f, id, band, claims, loss);
    boolean enabled = f.get("enabled").flatMap(n -> yaml.bool(n, "enabled", id)).orElse(true);
    if (errorCount() > errorsBefore
        || band.isEmpty()
        || when.isEmpty()
        || loss.isEmpty()
        || warmup.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> inputIds = new LinkedHashMap<>();
    inputs.forEach((name, spec) -> inputIds.put(name, spec.id()));
    return Optional.of(
        new Rule(
            id,
            band.get(),
            0,
            inputIds,
            trigger,
            when.get(),
            claims,
            actions,
            loss.get(),
            required,
            warmup.get(),
            interlock,
            enabled,
            new SourceRef(yaml.file(), YamlFile.line(node)),
            DefinitionHash.of(node),
            Optional.empty()));
  }

  private int errorCount() {
    return (int) yaml.problems().sorted().stream().filter(Problem::isError).count();
  }

  private String ruleId(Node node) {
    return YamlFile.scalarOf(node, "id");
  }

  private Optional<Band> band(Fields f, String id) {
    if (!f.has("band")) {
      yaml.error(
          f.node(),
          RuleCodes.RULE_004,
          id,
          "band is missing (interlock, safety, operator, orchestration, automation, ambient)");
      return Optional.empty();
    }
    Node n = f.get("band").orElseThrow();
    return yaml.text(n, "band", id)
        .flatMap(
            t -> {
              Optional<Band> b = Band.parse(t);
              if (b.isEmpty()) {
                yaml.error(
                    n,
                    RuleCodes.RULE_005,
                    id,
                    "band '"
                        + t
                        + "' is not one of interlock, safety, operator, orchestration, automation,"
                        + " ambient");
              }
              return b;
            });
  }

  private LinkedHashMap<String, PointSpec> inputs(Fields f, String id) {
    LinkedHashMap<String, PointSpec> inputs = new LinkedHashMap<>();
    unresolvedInputs = false;
    if (!f.has("inputs")) {
      yaml.error(
          f.node(), RuleCodes.RULE_010, id, "inputs is missing: name each point the rule reads");
      return inputs;
    }
    yaml.mapping(f.get("inputs").orElseThrow(), "inputs", id, Set.of())
        .ifPresent(
            m ->
                m.entries()
                    .forEach(
                        (name, node) ->
                            yaml.text(node, "inputs." + name, id)
                                .ifPresent(
                                    pointId -> {
                                      Optional<PointSpec> spec = registry.find(pointId);
                                      if (spec.isEmpty()) {
                                        unresolvedInputs = true;
                                        yaml.error(
                                            node,
                                            RuleCodes.RULE_011,
                                            id,
                                            "input "
                                                + name
                                                + ": point '"
                                                + pointId
                                                + "' is not in the registry");
                                      } else {
                                        inputs.put(name, spec.get());
                                      }
                                    })));
    return inputs;
  }

  private Optional<io.sentinel.expr.Condition> when(
      Fields f, String id, LinkedHashMap<String, PointSpec> inputs) {
    if (!f.has("when")) {
      yaml.error(
          f.node(),
          RuleCodes.RULE_030,
          id,
          "when is missing: the condition under which the rule claims");
      return Optional.empty();
    }
    Node n = f.get("when").orElseThrow();
    Optional<String> source = yaml.text(n, "when", id);
    if (source.isEmpty()) {
      return Optional.empty();
    }
    if (unresolvedInputs) {
      return Optional.empty(); // that error says it all; the expression's would only echo it
    }
    Compiled compiled = ExpressionCompiler.compile(source.get(), inputs);
    // A block scalar (when: |) starts on the line after its indicator.
    boolean block =
        n instanceof ScalarNode s
            && (s.getScalarStyle() == ScalarStyle.LITERAL
                || s.getScalarStyle() == ScalarStyle.FOLDED);
    int first = YamlFile.line(n) + (block ? 1 : 0);
    compiled
        .problems()
        .forEach(
            p ->
                yaml.problems()
                    .expressionError(
                        p.code(),
                        yaml.file(),
                        first + Math.max(p.line(), 1) - 1,
                        id,
                        "when: " + p.message() + " (column " + p.column() + ")"));
    return compiled.condition();
  }

  private List<ClaimSpec> claims(Fields f, String id) {
    List<ClaimSpec> out = new ArrayList<>();
    f.get("claims")
        .flatMap(n -> yaml.sequence(n, "claims", id))
        .ifPresent(
            items ->
                items.forEach(
                    item ->
                        yaml.mapping(item, "claim", id, RuleShapes.CLAIM.keys())
                            .ifPresent(c -> claim(c, item, id).ifPresent(out::add))));
    return out;
  }

  private Optional<ClaimSpec> claim(Fields c, Node item, String id) {
    Optional<PointSpec> point = RuleChecks.claimTarget(yaml, registry, c, id, "claim");
    Optional<Duration> expires =
        c.get("expires_in").flatMap(n -> yaml.duration(n, "expires_in", id));
    if (!c.has("value")) {
      yaml.error(item, RuleCodes.RULE_052, id, "a claim needs a value");
      return Optional.empty();
    }
    return point.flatMap(
        p ->
            ValueReader.read(yaml, c.get("value").orElseThrow(), p, "claim value", id)
                .map(
                    v ->
                        new ClaimSpec(
                            p.id(), v, expires, new SourceRef(yaml.file(), YamlFile.line(item)))));
  }
}
