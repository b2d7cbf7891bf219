package io.sentinel.rule;

import io.sentinel.expr.Compiled;
import io.sentinel.expr.ExpressionCompiler;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule.InterlockClass;
import io.sentinel.rule.Rule.RequiredQuality;
import io.sentinel.rule.YamlFile.Fields;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads native rules (seed 000's rule shape) from one YAML file and checks each rule against the
 * registry. Checks that need the whole set (duplicate ids, conflicting claims) are {@link
 * RuleSetChecks}'.
 */
public final class RuleLoader {
  static final Pattern RULE_ID = Pattern.compile(DocumentShapes.ID_PATTERN);
  private static final Pattern DEADLINE = Pattern.compile("deadline\\((.*)\\)");
  private static final Pattern ASSERT = Pattern.compile("assert\\((.*)\\)");
  // The keys each mapping takes: declared once, in DocumentShapes (also the JSON Schema's source).
  private static final Set<String> RULE_KEYS = DocumentShapes.RULE.keys();
  private static final Map<String, Set<String>> TRIGGER_KEYS =
      DocumentShapes.keySets(DocumentShapes.TRIGGERS);
  private static final Map<String, Set<String>> ACTION_KEYS =
      DocumentShapes.keySets(DocumentShapes.ACTIONS);

  private final YamlFile yaml;
  private final Registry registry;

  private SiteSettings settings = SiteSettings.DEFAULT;
  private Map<String, io.sentinel.derived.DerivedPoint> generated = new LinkedHashMap<>();

  /** Whether the rule being read named an input point the registry lacks. */
  private boolean unresolvedInputs;

  RuleLoader(YamlFile yaml, Registry registry) {
    this.yaml = yaml;
    this.registry = registry;
  }

  /** The rules of one file; every problem goes to {@code problems}. */
  public static List<Rule> load(String file, String text, Registry registry, Problems problems) {
    Map<String, io.sentinel.derived.DerivedPoint> generated = new LinkedHashMap<>();
    List<Rule> rules = load(file, text, registry, SiteSettings.DEFAULT, generated, problems);
    if (!generated.isEmpty()) {
      problems.error(
          "DSL-040",
          file,
          0,
          "",
          "built-ins ("
              + String.join(", ", generated.keySet())
              + ") need the whole site: load it with Site.load");
    }
    return rules;
  }

  /**
   * The rules of one file, native and DSL alike (one rule or a list per document, documents
   * separated by ---). Derived points that DSL built-ins need are added to {@code generated}.
   */
  public static List<Rule> load(
      String file,
      String text,
      Registry registry,
      SiteSettings settings,
      Map<String, io.sentinel.derived.DerivedPoint> generated,
      Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    RuleLoader loader = new RuleLoader(yaml, registry);
    loader.settings = settings;
    loader.generated = generated;
    List<Rule> out = new ArrayList<>();
    for (Node root : yaml.parseAll(text)) {
      out.addAll(loader.rules(root));
    }
    return out;
  }

  /** The rules of an already parsed list node (a revision document's {@code rules:}). */
  public static List<Rule> fromNodes(
      YamlFile yaml,
      Node list,
      Registry registry,
      SiteSettings settings,
      Map<String, io.sentinel.derived.DerivedPoint> generated) {
    RuleLoader loader = new RuleLoader(yaml, registry);
    loader.settings = settings;
    loader.generated = generated;
    if (!(list instanceof SequenceNode)) {
      yaml.error(list, "RULE-001", "", "rules: expected a list of rules");
      return List.of();
    }
    return loader.rules(list);
  }

  private List<Rule> rules(Node root) {
    Node list = root;
    if (DslLoader.isDsl(root)) {
      return DslLoader.load(yaml, root, registry, settings, generated);
    }
    if (root instanceof MappingNode) {
      Optional<Fields> top =
          yaml.mapping(root, "rule file", "", DocumentShapes.RULE_FILE_MAPPING.keys());
      if (top.isEmpty()) {
        return List.of();
      }
      Optional<Node> rules = top.get().get("rules");
      if (rules.isEmpty()) {
        yaml.error(
            root, "RULE-001", "", "a rule file is a list of rules, or a mapping with rules:");
        return List.of();
      }
      list = rules.get();
    }
    List<Rule> out = new ArrayList<>();
    yaml.sequence(list, "rules", "")
        .ifPresent(
            items ->
                items.forEach(
                    n -> {
                      if (DslLoader.isDsl(n)) {
                        out.addAll(DslLoader.load(yaml, n, registry, settings, generated));
                      } else {
                        rule(n).ifPresent(out::add);
                      }
                    }));
    return out;
  }

  private Optional<Rule> rule(Node node) {
    String id = ruleId(node);
    Optional<Fields> maybe = yaml.mapping(node, "rule", id, RULE_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    int errorsBefore = errorCount();
    if (!f.has("id")) {
      yaml.error(node, "RULE-002", "", "a rule needs an id");
    } else if (!RULE_ID.matcher(id).matches()) {
      yaml.error(
          f.get("id").orElseThrow(),
          "RULE-003",
          id,
          "an id is lower-case words joined by - _ or . (found '" + id + "')");
    }
    Optional<Band> band = band(f, id);
    LinkedHashMap<String, PointSpec> inputs = inputs(f, id);
    Trigger trigger = trigger(f, id, inputs);
    Optional<io.sentinel.expr.Condition> when = when(f, id, inputs);
    List<ClaimSpec> claims = claims(f, id);
    List<ActionSpec> actions = actions(f, id, inputs);
    Optional<InputLoss> loss = inputLoss(f, id, claims);
    Optional<Duration> holdMax = f.get("hold_max").flatMap(n -> yaml.duration(n, "hold_max", id));
    if (loss.filter(l -> l instanceof InputLoss.Hold).isPresent() && !f.has("hold_max")) {
      yaml.error(
          f.keyNode("on_input_loss"),
          "RULE-040",
          id,
          "on_input_loss: hold needs a bound: add hold_max (e.g. hold_max: 30m), after which it"
              + " degrades to release");
    }
    if (f.has("hold_max") && loss.filter(l -> l instanceof InputLoss.Hold).isEmpty()) {
      yaml.warning(
          f.keyNode("hold_max"),
          "RULE-041",
          id,
          "hold_max has no effect unless on_input_loss is hold");
    }
    RequiredQuality required = requiredQuality(f, id);
    unreachableQualities(f, id, trigger, required);
    Optional<Warmup> warmup = warmup(f, id);
    Optional<InterlockClass> interlock = interlock(f, id, band);
    Optional<Value> failValue = failValue(f, id, interlock, claims, loss);
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
            holdMax,
            required,
            warmup.get(),
            interlock,
            failValue,
            enabled,
            new SourceRef(yaml.file(), YamlFile.line(node)),
            definitionHash(node)));
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
          "RULE-004",
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
                    "RULE-005",
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
      yaml.error(f.node(), "RULE-010", id, "inputs is missing: name each point the rule reads");
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
                                            "RULE-011",
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

  private Trigger trigger(Fields f, String id, Map<String, PointSpec> inputs) {
    Trigger all = new Trigger.OnTransition(List.copyOf(inputs.keySet()));
    if (!f.has("trigger")) {
      return all;
    }
    Node node = f.get("trigger").orElseThrow();
    Optional<Fields> probe = yaml.mapping(node, "trigger", id, DocumentShapes.TRIGGER_KEYS);
    if (probe.isEmpty()) {
      return all;
    }
    Optional<String> on = probe.get().get("on").flatMap(n -> yaml.text(n, "trigger.on", id));
    if (on.isEmpty() || !TRIGGER_KEYS.containsKey(on.get())) {
      yaml.error(
          node,
          "RULE-020",
          id,
          "trigger.on must be transition, edge, quality or interval"
              + on.map(o -> " (found '" + o + "')").orElse(""));
      return all;
    }
    Set<String> allowed = TRIGGER_KEYS.get(on.get());
    for (String key : probe.get().entries().keySet()) {
      if (!allowed.contains(key)) {
        yaml.error(
            probe.get().keyNode(key),
            "RULE-021",
            id,
            "trigger on "
                + on.get()
                + " takes "
                + String.join(", ", new java.util.TreeSet<>(allowed))
                + ", not "
                + key);
      }
    }
    Fields t = probe.get();
    switch (on.get()) {
      case "transition":
        {
          List<String> of = new ArrayList<>();
          t.get("of")
              .ifPresentOrElse(
                  n -> yaml.oneOrMany(n).forEach(x -> inputRef(x, id, inputs).ifPresent(of::add)),
                  () -> of.addAll(inputs.keySet()));
          return new Trigger.OnTransition(of);
        }
      case "edge":
        {
          Optional<String> of = single(t, id, inputs, "edge");
          of.map(inputs::get)
              .filter(
                  p ->
                      !(p.type() instanceof PointType.Bool || p.type() instanceof PointType.Number))
              .ifPresent(
                  p ->
                      yaml.error(
                          t.get("of").orElseThrow(),
                          "RULE-022",
                          id,
                          "an edge needs a bool or number input; "
                              + p.id()
                              + " is "
                              + p.type().name()));
          Optional<String> dir = t.get("edge").flatMap(n -> yaml.text(n, "trigger.edge", id));
          if (dir.isEmpty() || !(dir.get().equals("rising") || dir.get().equals("falling"))) {
            yaml.error(t.node(), "RULE-023", id, "trigger.edge must be rising or falling");
            return all;
          }
          return of.<Trigger>map(
                  o ->
                      new Trigger.OnEdge(
                          o,
                          dir.get().equals("rising") ? Trigger.Edge.RISING : Trigger.Edge.FALLING))
              .orElse(all);
        }
      case "quality":
        {
          Optional<String> of = single(t, id, inputs, "quality");
          Set<Quality> to = new LinkedHashSet<>();
          if (!t.has("to")) {
            yaml.error(
                t.node(), "RULE-024", id, "trigger on quality needs to: [stale, unavailable, bad]");
          }
          t.get("to")
              .ifPresent(
                  n ->
                      yaml.oneOrMany(n)
                          .forEach(
                              q ->
                                  yaml.text(q, "trigger.to", id)
                                      .ifPresent(
                                          s ->
                                              Quality.parse(s)
                                                  .ifPresentOrElse(
                                                      to::add,
                                                      () ->
                                                          yaml.error(
                                                              q,
                                                              "RULE-025",
                                                              id,
                                                              "'"
                                                                  + s
                                                                  + "' is not a quality (live, stale,"
                                                                  + " unavailable, bad, unknown,"
                                                                  + " restored)")))));
          return of.<Trigger>map(o -> new Trigger.OnQuality(o, to)).orElse(all);
        }
      default:
        {
          Optional<Duration> every =
              t.get("every").flatMap(n -> yaml.duration(n, "trigger.every", id));
          if (!t.has("every")) {
            yaml.error(
                t.node(), "RULE-026", id, "trigger on interval needs every: (e.g. every: 5m)");
          } else if (every.isPresent() && every.get().isZero()) {
            yaml.error(
                t.get("every").orElseThrow(),
                "RULE-026",
                id,
                "trigger.every must be longer than zero");
          }
          return every.filter(d -> !d.isZero()).<Trigger>map(Trigger.OnInterval::new).orElse(all);
        }
    }
  }

  private Optional<String> single(Fields t, String id, Map<String, PointSpec> inputs, String kind) {
    Optional<Node> of = t.get("of");
    if (of.isEmpty()) {
      yaml.error(t.node(), "RULE-027", id, "trigger on " + kind + " needs of: <input>");
      return Optional.empty();
    }
    return inputRef(of.get(), id, inputs);
  }

  private Optional<String> inputRef(Node n, String id, Map<String, PointSpec> inputs) {
    return yaml.text(n, "trigger.of", id)
        .filter(
            name -> {
              if (inputs.containsKey(name)) {
                return true;
              }
              yaml.error(
                  n,
                  "RULE-028",
                  id,
                  "trigger.of names '"
                      + name
                      + "', which is not a declared input ("
                      + String.join(", ", inputs.keySet())
                      + ")");
              return false;
            });
  }

  private Optional<io.sentinel.expr.Condition> when(
      Fields f, String id, LinkedHashMap<String, PointSpec> inputs) {
    if (!f.has("when")) {
      yaml.error(
          f.node(), "RULE-030", id, "when is missing: the condition under which the rule claims");
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
                    .error(
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
                        yaml.mapping(item, "claim", id, DocumentShapes.CLAIM.keys())
                            .ifPresent(c -> claim(c, item, id).ifPresent(out::add))));
    return out;
  }

  private Optional<ClaimSpec> claim(Fields c, Node item, String id) {
    Optional<PointSpec> point = claimTarget(c, id, "claim");
    Optional<Duration> expires =
        c.get("expires_in").flatMap(n -> yaml.duration(n, "expires_in", id));
    if (!c.has("value")) {
      yaml.error(item, "RULE-052", id, "a claim needs a value");
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

  private Optional<PointSpec> claimTarget(Fields c, String id, String what) {
    if (!c.has("point")) {
      yaml.error(c.node(), "RULE-050", id, what + " needs a point");
      return Optional.empty();
    }
    Node n = c.get("point").orElseThrow();
    return yaml.text(n, what + " point", id)
        .flatMap(
            pid -> {
              Optional<PointSpec> p = registry.find(pid);
              if (p.isEmpty()) {
                yaml.error(n, "RULE-050", id, what + " point '" + pid + "' is not in the registry");
                return Optional.empty();
              }
              if (!p.get().direction().claimable()) {
                yaml.error(
                    n,
                    "RULE-051",
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

  private List<ActionSpec> actions(Fields f, String id, Map<String, PointSpec> inputs) {
    List<ActionSpec> out = new ArrayList<>();
    f.get("actions")
        .flatMap(n -> yaml.sequence(n, "actions", id))
        .ifPresent(items -> items.forEach(item -> action(item, id, inputs).ifPresent(out::add)));
    return out;
  }

  private Optional<ActionSpec> action(Node item, String id, Map<String, PointSpec> inputs) {
    Optional<Fields> probe = yaml.mapping(item, "action", id, Set.of());
    if (probe.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> kind = probe.get().get("kind").flatMap(n -> yaml.text(n, "action kind", id));
    if (kind.isEmpty() || !ACTION_KEYS.containsKey(kind.get())) {
      yaml.error(
          item,
          "RULE-060",
          id,
          "action kind must be notify or pulse" + kind.map(k -> " (found '" + k + "')").orElse(""));
      return Optional.empty();
    }
    Optional<Fields> maybe =
        yaml.mapping(item, "action " + kind.get(), id, ACTION_KEYS.get(kind.get()));
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields a = maybe.get();
    Optional<Duration> cooldown = a.get("cooldown").flatMap(n -> yaml.duration(n, "cooldown", id));
    if (!a.has("cooldown")) {
      yaml.error(
          item,
          "RULE-061",
          id,
          "action "
              + kind.get()
              + " has no cooldown: an action without one eventually fires in a loop");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    a.entries()
        .forEach(
            (k, n) -> {
              if (!k.equals("kind") && !k.equals("cooldown")) {
                yaml.text(n, "action " + k, id).ifPresent(v -> fields.put(k, v));
              }
            });
    if (kind.get().equals("notify")) {
      for (String required : List.of("channel", "message")) {
        if (!a.has(required)) {
          yaml.error(item, "RULE-062", id, "action notify needs " + required);
        }
      }
      Node message = a.get("message").orElse(item);
      for (String name : MessageTemplate.names(fields.getOrDefault("message", ""))) {
        if (MessageTemplate.parse(name, fields.keySet(), inputs.keySet()).isEmpty()) {
          yaml.error(
              message,
              "RULE-063",
              id,
              "message placeholder {{ "
                  + name
                  + " }} is neither an action field nor <input>.value / <input>.quality nor rule");
        }
      }
    } else {
      Optional<PointSpec> point = claimTarget(a, id, "pulse");
      point
          .filter(p -> !(p.type() instanceof PointType.Bool))
          .ifPresent(
              p ->
                  yaml.error(
                      a.get("point").orElseThrow(),
                      "RULE-064",
                      id,
                      "pulse point " + p.id() + " must be bool, it is " + p.type().name()));
      Optional<Duration> duration =
          a.get("duration").flatMap(n -> yaml.duration(n, "duration", id));
      if (!a.has("duration")) {
        yaml.error(item, "RULE-065", id, "action pulse needs a duration");
      }
      if (point.isPresent() && duration.isPresent()) {
        point
            .get()
            .pulseMax()
            .filter(max -> duration.get().compareTo(max) > 0)
            .ifPresent(
                max ->
                    yaml.error(
                        a.get("duration").orElseThrow(),
                        "RULE-066",
                        id,
                        "pulse of "
                            + fields.get("duration")
                            + " is longer than "
                            + point.get().id()
                            + "'s pulse_max"));
      }
    }
    return cooldown.map(
        c ->
            new ActionSpec(kind.get(), c, fields, new SourceRef(yaml.file(), YamlFile.line(item))));
  }

  Optional<InputLoss> inputLoss(Fields f, String id, List<ClaimSpec> claims) {
    if (!f.has("on_input_loss")) {
      yaml.error(
          f.node(),
          "RULE-042",
          id,
          "on_input_loss is missing: every rule says release, hold or {assert: value}");
      return Optional.empty();
    }
    Node n = f.get("on_input_loss").orElseThrow();
    Optional<Node> assertNode = Optional.empty();
    if (n instanceof MappingNode) {
      assertNode =
          yaml.mapping(n, "on_input_loss", id, DocumentShapes.INPUT_LOSS_ASSERT.keys())
              .flatMap(m -> m.get("assert"));
      if (assertNode.isEmpty()) {
        yaml.error(n, "RULE-043", id, "on_input_loss is release, hold or {assert: value}");
        return Optional.empty();
      }
    } else if (n instanceof ScalarNode s) {
      String t = s.getValue();
      Matcher m = ASSERT.matcher(t);
      if (t.equals("release")) {
        return Optional.of(new InputLoss.Release());
      }
      if (t.equals("hold")) {
        return Optional.of(new InputLoss.Hold());
      }
      if (!m.matches()) {
        yaml.error(
            n, "RULE-043", id, "on_input_loss '" + t + "' is not release, hold or {assert: value}");
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
      yaml.error(n, "RULE-043", id, "on_input_loss is release, hold or {assert: value}");
      return Optional.empty();
    }
    Optional<Value> value = valueForAllClaims(assertNode.get(), claims, "on_input_loss assert", id);
    if (claims.isEmpty()) {
      yaml.error(n, "RULE-044", id, "on_input_loss assert needs claims to assert on");
    }
    return value.map(InputLoss.Assert::new);
  }

  /** A value written once and applied to every claimed point must fit each of them. */
  private Optional<Value> valueForAllClaims(
      Node n, List<ClaimSpec> claims, String field, String id) {
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

  /**
   * Input loss decides before {@code when} (docs/engine.md, "Quality triggers"): a quality the rule
   * does not tolerate can trigger it, but only its on_input_loss acts on it.
   */
  private void unreachableQualities(
      Fields f, String id, Trigger trigger, RequiredQuality required) {
    if (!(trigger instanceof Trigger.OnQuality q)) {
      return;
    }
    List<String> lost =
        q.to().stream()
            .filter(
                x ->
                    x != Quality.LIVE
                        && !(x == Quality.STALE && required == RequiredQuality.LIVE_OR_STALE))
            .map(Quality::wireName)
            .sorted()
            .toList();
    if (!lost.isEmpty()) {
      yaml.warning(
          f.keyNode("trigger"),
          "RULE-029",
          id,
          "trigger.to: "
              + String.join(", ", lost)
              + " is input loss for this rule (required_quality "
              + (required == RequiredQuality.LIVE ? "live" : "live_or_stale")
              + "): on_input_loss decides then, when never sees it");
    }
  }

  RequiredQuality requiredQuality(Fields f, String id) {
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
        "RULE-045",
        id,
        "required_quality '" + t.get() + "' is not live or live_or_stale");
    return RequiredQuality.LIVE;
  }

  Optional<Warmup> warmup(Fields f, String id) {
    if (!f.has("warmup")) {
      yaml.error(
          f.node(),
          "RULE-046",
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
                    "YAML-020",
                    id,
                    "warmup deadline '" + m.group(1) + "' is not a duration above zero");
                return Optional.empty();
              }
              yaml.error(
                  n,
                  "RULE-047",
                  id,
                  "warmup '"
                      + t
                      + "' is not all_inputs_live, all_inputs_known or deadline(<duration>)");
              return Optional.empty();
            });
  }

  private Optional<InterlockClass> interlock(Fields f, String id, Optional<Band> band) {
    boolean isInterlock = band.filter(b -> b == Band.INTERLOCK).isPresent();
    Optional<String> t = f.get("interlock_class").flatMap(n -> yaml.text(n, "interlock_class", id));
    if (t.isEmpty()) {
      if (isInterlock && !f.has("interlock_class")) {
        yaml.error(
            f.node(),
            "RULE-070",
            id,
            "an interlock rule needs interlock_class: fail_safe or fail_clear");
      }
      return Optional.empty();
    }
    Node n = f.get("interlock_class").orElseThrow();
    Optional<InterlockClass> c =
        switch (t.get()) {
          case "fail_safe" -> Optional.of(InterlockClass.FAIL_SAFE);
          case "fail_clear" -> Optional.of(InterlockClass.FAIL_CLEAR);
          default -> Optional.empty();
        };
    if (c.isEmpty()) {
      yaml.error(
          n, "RULE-071", id, "interlock_class '" + t.get() + "' is not fail_safe or fail_clear");
    }
    if (!isInterlock && band.isPresent()) {
      yaml.error(
          n,
          "RULE-072",
          id,
          "interlock_class belongs to rules in band interlock (this rule is in "
              + band.get().wireName()
              + ")");
    }
    return c;
  }

  private Optional<Value> failValue(
      Fields f,
      String id,
      Optional<InterlockClass> interlock,
      List<ClaimSpec> claims,
      Optional<InputLoss> loss) {
    boolean failSafe = interlock.filter(c -> c == InterlockClass.FAIL_SAFE).isPresent();
    if (!f.has("fail_value")) {
      if (failSafe) {
        yaml.error(
            f.node(),
            "RULE-073",
            id,
            "a fail_safe interlock needs fail_value: the protective value it asserts from core start");
      }
      return Optional.empty();
    }
    Node n = f.get("fail_value").orElseThrow();
    if (!failSafe) {
      yaml.warning(
          n, "RULE-074", id, "fail_value is used by fail_safe interlocks only; it is ignored here");
      return Optional.empty();
    }
    if (claims.isEmpty()) {
      yaml.error(
          n, "RULE-075", id, "a fail_safe interlock needs claims: the points fail_value protects");
      return Optional.empty();
    }
    Optional<Value> v = valueForAllClaims(n, claims, "fail_value", id);
    if (v.isPresent()
        && loss.isPresent()
        && !(loss.get() instanceof InputLoss.Assert a && a.value().equals(v.get()))) {
      yaml.warning(
          f.keyNode("on_input_loss"),
          "RULE-076",
          id,
          "a fail_safe interlock asserts fail_value on input loss whatever on_input_loss says; write"
              + " on_input_loss: {assert: "
              + v.get()
              + "} to say so");
    }
    return v;
  }

  /**
   * A hash of the rule as written, without {@code enabled} (toggling it never resets state) and
   * without {@code description} (rewording a rule changes nothing it does, so a revision keeps its
   * state and needs no review for it).
   */
  static String definitionHash(Node node) {
    StringBuilder b = new StringBuilder();
    canonical(node, b, true);
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(b.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static String canonicalKey(Node key) {
    StringBuilder b = new StringBuilder();
    canonical(key, b, false);
    return b.toString();
  }

  private static void canonical(Node node, StringBuilder b, boolean top) {
    if (node instanceof ScalarNode s) {
      b.append('"').append(s.getValue().strip().replace("\"", "\\\"")).append('"');
    } else if (node instanceof SequenceNode s) {
      b.append('[');
      s.getValue().forEach(n -> canonical(n, b.append(','), false));
      b.append(']');
    } else if (node instanceof MappingNode m) {
      b.append('{');
      m.getValue().stream()
          .filter(
              t ->
                  !(top
                      && t.getKeyNode() instanceof ScalarNode k
                      && (k.getValue().equals("enabled") || k.getValue().equals("description"))))
          // A key that is not a scalar (a fuzzed `{a: 1}: x`, rejected by the loaders) sorts by its
          // own canonical text rather than throwing.
          .sorted(
              java.util.Comparator.comparing(
                  t ->
                      t.getKeyNode() instanceof ScalarNode k
                          ? k.getValue()
                          : canonicalKey(t.getKeyNode())))
          .forEach(
              t -> {
                canonical(t.getKeyNode(), b, false);
                b.append(':');
                canonical(t.getValueNode(), b, false);
                b.append(',');
              });
      b.append('}');
    }
  }
}
