package io.sentinel.site.dsl;

import io.sentinel.derived.DerivedKind;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.expr.Compiled;
import io.sentinel.expr.Condition;
import io.sentinel.expr.ExpressionCompiler;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
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
import io.sentinel.site.yaml.DocumentShapes;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlCodes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  private static final Set<String> RULE_KEYS = DocumentShapes.DSL_RULE.keys();
  private static final List<String> OPERATORS =
      List.of(
          "equals",
          "not_equals",
          "gt",
          "gte",
          "lt",
          "lte",
          "between",
          "in",
          "not_in",
          "changed",
          "stale_for",
          "matches");
  private static final Map<String, String> COMPARISON =
      Map.of("equals", "==", "not_equals", "!=", "gt", ">", "gte", ">=", "lt", "<", "lte", "<=");
  private static final Pattern QUANTITY =
      Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*([A-Za-z%/0-9]*)");
  private static final Pattern FUNCTION =
      Pattern.compile("(rolling_avg|rate|age)\\(\\s*([^,)\\s]+)\\s*(?:,\\s*([^)\\s]+)\\s*)?\\)");
  private static final Pattern PULSE_SHORTHAND = Pattern.compile("pulse_(\\d+(?:ms|s|m))");

  /** Units written the way venue and HVAC people write them. */
  private static final Map<String, String> UNIT_ALIASES = Map.of("F", "degF", "C", "degC");

  private static final int REGEX_LIMIT = 128;

  private final YamlFile yaml;
  private final Registry registry;
  private final ZoneId zone;
  private final Map<String, DerivedPoint> generated;

  /** In an instance of a {@code zone: court.*} rule: the zone, and what its * stands for. */
  private final String boundZone;

  private final String star;

  /** The point of the rule's {@code event:} condition, which {@code confidence_gte} qualifies. */
  private String eventPoint;

  private String id = "";
  private final LinkedHashMap<String, PointSpec> inputs = new LinkedHashMap<>();

  private DslLoader(
      YamlFile yaml,
      Registry registry,
      ZoneId zone,
      Map<String, DerivedPoint> generated,
      String boundZone,
      String star) {
    this.yaml = yaml;
    this.registry = registry;
    this.zone = zone;
    this.generated = generated;
    this.boundZone = boundZone;
    this.star = star;
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
      return new DslLoader(yaml, registry, timeZone, generated, null, null)
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
        new DslLoader(yaml, registry, timeZone, generated, z, bound.get())
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

  /** A path of the rule, with the zone's * in place of each * segment in a zone instance. */
  private String bind(String path) {
    if (star == null) {
      return path;
    }
    String[] parts = path.split("\\.", -1);
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].equals("*")) {
        parts[i] = star;
      }
    }
    return String.join(".", parts);
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
    id = boundZone == null ? written : written + "@" + boundZone;
    int errors = errorCount();
    if (!RuleChecks.validId(written)) {
      yaml.error(
          node,
          DslCodes.DSL_001,
          id,
          "rule: an id is lower-case words joined by - _ or . (found '" + id + "')");
    }
    Optional<Integer> priority = priority(f);
    Optional<Condition> when = when(f);
    List<ClaimSpec> claims = new ArrayList<>();
    List<ActionSpec> actions = new ArrayList<>();
    List<Condition> holdUntil = new ArrayList<>();
    if (!f.has("then")) {
      yaml.error(node, DslCodes.DSL_030, id, "then is missing: the outputs the rule drives");
    }
    f.get("then")
        .flatMap(n -> yaml.sequence(n, "then", id))
        .ifPresent(items -> items.forEach(item -> output(item, claims, actions, holdUntil)));
    if (errorCount() > errors || priority.isEmpty() || when.isEmpty()) {
      return Optional.empty();
    }
    Band band =
        priority.get() >= 90
            ? Band.SAFETY
            : priority.get() >= 50 ? Band.ORCHESTRATION : Band.AMBIENT;
    // The native policies, read as the native loader reads them, with the DSL's defaults.
    RulePolicies policies = new RulePolicies(yaml, registry);
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
    inputs.forEach((name, spec) -> inputIds.put(name, spec.id()));
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

  private Optional<Integer> priority(Fields f) {
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

  // ---- conditions ---------------------------------------------------------------------------

  private Optional<Condition> when(Fields f) {
    if (!f.has("when")) {
      yaml.error(
          f.node(),
          DslCodes.DSL_010,
          id,
          "when is missing: all: or any: with a list of conditions");
      return Optional.empty();
    }
    Optional<Fields> w =
        yaml.mapping(f.get("when").orElseThrow(), "when", id, DocumentShapes.DSL_WHEN.keys());
    if (w.isEmpty() || w.get().entries().size() != 1) {
      w.ifPresent(
          x ->
              yaml.error(x.node(), DslCodes.DSL_010, id, "when holds exactly one of all: or any:"));
      return Optional.empty();
    }
    boolean all = w.get().has("all");
    Node list = w.get().get(all ? "all" : "any").orElseThrow();
    List<Condition> parts = new ArrayList<>();
    boolean ok = true;
    for (Node c : yaml.sequence(list, "when", id).orElse(List.of())) {
      Optional<Condition> part = condition(c);
      ok &= part.isPresent();
      part.ifPresent(parts::add);
    }
    if (parts.isEmpty() && ok) {
      yaml.error(list, DslCodes.DSL_010, id, "when needs at least one condition");
      return Optional.empty();
    }
    return ok
        ? Optional.of(new DslCondition.Combined(all, parts, all ? "all" : "any"))
        : Optional.empty();
  }

  private Optional<Condition> condition(Node node) {
    Optional<Fields> probe = yaml.mapping(node, "condition", id, Set.of());
    if (probe.isEmpty()) {
      return Optional.empty();
    }
    Fields c = probe.get();
    if (c.has("zone")) {
      // Instances exist only for matching zones: inside one, the zone condition holds.
      return onlyKeys(c, Set.of("zone")) ? compile("true", YamlFile.line(node)) : Optional.empty();
    }
    if (c.has("event")) {
      if (!onlyKeys(c, Set.of("event"))) {
        return Optional.empty();
      }
      Optional<String> e = c.get("event").flatMap(n -> yaml.text(n, "event", id));
      if (e.isEmpty()) {
        return Optional.empty();
      }
      // An event of a zone is the zone's point of that name: court.3 + scoreboard.period_end.
      String pointId = boundZone == null ? e.get() : boundZone + "." + e.get();
      Optional<PointSpec> p = point(pointId, node);
      if (p.isPresent() && !(p.get().type() instanceof PointType.Bool)) {
        yaml.error(
            node,
            DslCodes.DSL_042,
            id,
            "event " + pointId + " must be a bool point, it is " + p.get().type().name());
        return Optional.empty();
      }
      eventPoint = pointId;
      return p.flatMap(x -> compile(declare(x) + ".value == true", YamlFile.line(node)));
    }
    if (c.has("confidence_gte")) {
      if (!onlyKeys(c, Set.of("confidence_gte"))) {
        return Optional.empty();
      }
      if (eventPoint == null) {
        yaml.error(
            node,
            DslCodes.DSL_043,
            id,
            "confidence_gte qualifies an event: put an event: condition before it");
        return Optional.empty();
      }
      Optional<PointSpec> p = point(eventPoint + ".confidence", node);
      Node v = c.get("confidence_gte").orElseThrow();
      return p.flatMap(
          x ->
              literal(v, x)
                  .flatMap(l -> compile(declare(x) + ".value >= " + l, YamlFile.line(node))));
    }
    if (c.has("time_of_day")) {
      return onlyKeys(c, Set.of("time_of_day"))
          ? timeOfDay(c.get("time_of_day").orElseThrow())
          : Optional.empty();
    }
    if (c.has("changed") && !c.has("input")) {
      return onlyKeys(c, Set.of("changed"))
          ? c.get("changed")
              .flatMap(n -> yaml.text(n, "changed", id))
              .flatMap(p -> changed(p, node))
          : Optional.empty();
    }
    if (!c.has("input")) {
      yaml.error(
          node,
          DslCodes.DSL_011,
          id,
          "a condition is {input: <point>, <operator>: <value>}, {time_of_day: {...}} or {changed: <point>}; found keys "
              + c.entries().keySet());
      return Optional.empty();
    }
    List<String> ops = c.entries().keySet().stream().filter(k -> !k.equals("input")).toList();
    if (ops.size() != 1 || !OPERATORS.contains(ops.get(0))) {
      yaml.error(
          node,
          DslCodes.DSL_012,
          id,
          "a condition has one operator of " + String.join(", ", OPERATORS) + "; found " + ops);
      return Optional.empty();
    }
    String op = ops.get(0);
    Node valueNode = c.get(op).orElseThrow();
    Optional<String> path = c.get("input").flatMap(n -> yaml.text(n, "input", id));
    if (path.isEmpty()) {
      return Optional.empty();
    }
    if (op.equals("changed")) {
      return changed(path.get(), node);
    }
    if (path.get().replace(" ", "").equals("zone()")) {
      return zoneIs(op, valueNode);
    }
    Optional<PointSpec> point =
        op.equals("stale_for")
            ? builtin("age(" + path.get() + ")", node)
            : builtin(path.get(), node);
    if (point.isEmpty()) {
      return Optional.empty();
    }
    String name = declare(point.get());
    int line = YamlFile.line(valueNode);
    switch (op) {
      case "matches":
        return matches(point.get(), name, valueNode);
      case "stale_for":
        return yaml.duration(valueNode, "stale_for", id)
            .flatMap(d -> compile(name + ".value >= " + d.toMillis() + " ms", line));
      case "between":
        {
          Optional<List<Node>> range = yaml.sequence(valueNode, "between", id);
          if (range.isEmpty() || range.get().size() != 2) {
            range.ifPresent(
                r -> yaml.error(valueNode, DslCodes.DSL_013, id, "between takes [low, high]"));
            return Optional.empty();
          }
          Optional<String> lo = literal(range.get().get(0), point.get());
          Optional<String> hi = literal(range.get().get(1), point.get());
          return lo.isPresent() && hi.isPresent()
              ? compile(
                  name + ".value >= " + lo.get() + " and " + name + ".value <= " + hi.get(), line)
              : Optional.empty();
        }
      case "in":
      case "not_in":
        {
          List<String> items = new ArrayList<>();
          for (Node item : yaml.oneOrMany(valueNode)) {
            Optional<String> l = literal(item, point.get());
            if (l.isEmpty()) {
              return Optional.empty();
            }
            items.add(l.get());
          }
          String in = op.equals("in") ? " in [" : " not in [";
          return compile(name + ".value" + in + String.join(", ", items) + "]", line);
        }
      default:
        return literal(valueNode, point.get())
            .flatMap(l -> compile(name + ".value " + COMPARISON.get(op) + " " + l, line));
    }
  }

  /**
   * {@code zone()}: the zone of this instance of a {@code zone:} rule, known when the rule set is
   * loaded, so the comparison is decided then (a rule with no zone has none: the comparison is
   * false, its negation true).
   */
  private Optional<Condition> zoneIs(String op, Node valueNode) {
    if (!Set.of("equals", "not_equals", "in", "not_in").contains(op)) {
      yaml.error(
          valueNode,
          DslCodes.DSL_044,
          id,
          "zone() takes equals, not_equals, in or not_in; found " + op);
      return Optional.empty();
    }
    List<String> zones = new ArrayList<>();
    for (Node n : yaml.oneOrMany(valueNode)) {
      yaml.text(n, "zone", id).ifPresent(zones::add);
    }
    boolean in = boundZone != null && zones.contains(boundZone);
    boolean holds = op.startsWith("not") ? boundZone != null && !in : in;
    return compile(holds ? "true" : "false", YamlFile.line(valueNode));
  }

  private boolean onlyKeys(Fields c, Set<String> keys) {
    if (keys.containsAll(c.entries().keySet())) {
      return true;
    }
    yaml.error(
        c.node(),
        DslCodes.DSL_011,
        id,
        "this condition takes only " + keys + "; found " + c.entries().keySet());
    return false;
  }

  private Optional<Condition> changed(String path, Node at) {
    return builtin(path, at)
        .map(p -> new DslCondition.Changed(slotOf(declare(p)), declare(p), "changed " + path));
  }

  private Optional<Condition> matches(PointSpec point, String name, Node valueNode) {
    if (!(point.type() instanceof PointType.Text)) {
      yaml.error(
          valueNode,
          DslCodes.DSL_014,
          id,
          "matches needs a string point; " + point.id() + " is " + point.type().name());
      return Optional.empty();
    }
    Optional<String> re = yaml.text(valueNode, "matches", id);
    if (re.isEmpty()) {
      return Optional.empty();
    }
    if (re.get().length() > REGEX_LIMIT) {
      yaml.error(
          valueNode,
          DslCodes.DSL_015,
          id,
          "matches: the expression is "
              + re.get().length()
              + " characters; the limit is "
              + REGEX_LIMIT);
      return Optional.empty();
    }
    try {
      return Optional.of(
          new DslCondition.Matches(
              slotOf(name), name, com.google.re2j.Pattern.compile(re.get()), re.get()));
    } catch (com.google.re2j.PatternSyntaxException e) {
      yaml.error(
          valueNode, DslCodes.DSL_016, id, "matches: not an RE2 expression: " + e.getDescription());
      return Optional.empty();
    }
  }

  private Optional<Condition> timeOfDay(Node node) {
    Optional<Fields> f =
        yaml.mapping(node, "time_of_day", id, DocumentShapes.DSL_TIME_OF_DAY.keys());
    if (f.isEmpty() || f.get().entries().size() != 1) {
      f.ifPresent(
          x ->
              yaml.error(
                  node,
                  DslCodes.DSL_017,
                  id,
                  "time_of_day takes one of between, gt, gte, lt, lte"));
      return Optional.empty();
    }
    String op = f.get().entries().keySet().iterator().next();
    Node v = f.get().get(op).orElseThrow();
    LocalTime from;
    LocalTime to;
    if (op.equals("between")) {
      List<Node> range = yaml.sequence(v, "between", id).orElse(List.of());
      if (range.size() != 2) {
        yaml.error(v, DslCodes.DSL_017, id, "time_of_day between takes [\"HH:MM\", \"HH:MM\"]");
        return Optional.empty();
      }
      Optional<LocalTime> a = clock(range.get(0));
      Optional<LocalTime> b = clock(range.get(1));
      if (a.isEmpty() || b.isEmpty()) {
        return Optional.empty();
      }
      from = a.get();
      to = b.get();
    } else {
      Optional<LocalTime> t = clock(v);
      if (t.isEmpty()) {
        return Optional.empty();
      }
      // A window of local time: gt/gte from the time to midnight, lt/lte from midnight to it.
      from = op.startsWith("g") ? t.get() : LocalTime.MIDNIGHT;
      to = op.startsWith("g") ? LocalTime.MIDNIGHT : t.get();
    }
    String pointId = "time_of_day(" + from + ".." + to + ")";
    PointSpec spec = generatedSpec(pointId, new PointType.Bool());
    generated.putIfAbsent(
        pointId,
        new DerivedPoint(
            spec,
            new DerivedKind.TimeWindow(from, to, zone),
            List.of(),
            "tod:" + from + to + zone));
    String name = declare(spec);
    return compile(name + ".value", YamlFile.line(node));
  }

  private Optional<LocalTime> clock(Node n) {
    Optional<String> t = yaml.text(n, "time_of_day", id);
    try {
      return t.map(LocalTime::parse);
    } catch (java.time.format.DateTimeParseException e) {
      yaml.error(
          n, DslCodes.DSL_018, id, "time_of_day: '" + t.get() + "' is not a time of day (HH:MM)");
      return Optional.empty();
    }
  }

  /** A point, or a built-in over one: rolling_avg(p, 5s), rate(p, 1m), age(p). */
  private Optional<PointSpec> builtin(String path, Node at) {
    Matcher m = FUNCTION.matcher(path.trim());
    if (!m.matches()) {
      return point(path, at);
    }
    Optional<PointSpec> of = point(m.group(2), at);
    if (of.isEmpty()) {
      return Optional.empty();
    }
    String fn = m.group(1);
    Optional<Duration> window = Optional.ofNullable(m.group(3)).flatMap(YamlFile::parseDuration);
    if (!fn.equals("age") && window.isEmpty()) {
      yaml.error(
          at, DslCodes.DSL_019, id, fn + " needs a window: " + fn + "(" + m.group(2) + ", 5s)");
      return Optional.empty();
    }
    if (!fn.equals("age") && !(of.get().type() instanceof PointType.Number)) {
      yaml.error(
          at,
          DslCodes.DSL_019,
          id,
          fn + " needs a number point; " + of.get().id() + " is " + of.get().type().name());
      return Optional.empty();
    }
    String pointId = fn + "(" + of.get().id() + (window.isPresent() ? ", " + m.group(3) : "") + ")";
    DerivedKind kind =
        switch (fn) {
          case "rolling_avg" -> new DerivedKind.RollingAvg(window.get());
          case "rate" -> new DerivedKind.Rate(window.get());
          default -> new DerivedKind.Age(Duration.ofSeconds(1));
        };
    PointType type =
        switch (fn) {
          case "rolling_avg" -> new PointType.Number(of.get().unit());
          case "age" -> new PointType.Number(MeasureUnit.parse("s").orElseThrow());
          default -> new PointType.Number(MeasureUnit.NONE);
        };
    PointSpec spec = generatedSpec(pointId, type);
    generated.putIfAbsent(
        pointId, new DerivedPoint(spec, kind, List.of(of.get().id()), "dsl:" + pointId));
    return Optional.of(spec);
  }

  private PointSpec generatedSpec(String pointId, PointType type) {
    return PointSpec.computed(pointId, type, 0, new SourceRef(yaml.file(), 0));
  }

  private Optional<PointSpec> point(String written, Node at) {
    String path = bind(written);
    Optional<PointSpec> p =
        registry
            .find(path)
            .or(() -> Optional.ofNullable(generated.get(path)).map(DerivedPoint::spec));
    if (p.isEmpty()) {
      yaml.error(at, DslCodes.DSL_020, id, "point '" + path + "' is not in the registry");
    }
    return p;
  }

  /** The input name of a point in this rule's expression inputs, declaring it on first use. */
  private String declare(PointSpec point) {
    String name = point.id().replaceAll("[^A-Za-z0-9_]", "_");
    if (!Character.isLetter(name.charAt(0))) {
      name = "p_" + name;
    }
    inputs.putIfAbsent(name, point);
    return name;
  }

  private int slotOf(String name) {
    return new ArrayList<>(inputs.keySet()).indexOf(name);
  }

  /**
   * A value of the DSL as a literal of the expression language for {@code point}: numbers keep the
   * unit they are written in ({@code 68F}), so the one unit check of the language applies.
   */
  private Optional<String> literal(Node node, PointSpec point) {
    Optional<String> text = yaml.text(node, "value", id);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String t = text.get().trim();
    PointType type = point.type();
    if (type instanceof PointType.Bool) {
      if (YamlFile.isPlain(node) && (t.equals("true") || t.equals("false"))) {
        return Optional.of(t);
      }
      yaml.error(
          node,
          DslCodes.DSL_021,
          id,
          point.id() + " is bool: expected true or false, found '" + t + "'");
      return Optional.empty();
    }
    if (type instanceof PointType.Number) {
      Matcher m = QUANTITY.matcher(t);
      if (!m.matches()) {
        yaml.error(
            node,
            DslCodes.DSL_022,
            id,
            point.id()
                + " is a number in "
                + point.unit().describe()
                + ": '"
                + t
                + "' is not a quantity");
        return Optional.empty();
      }
      String unit = UNIT_ALIASES.getOrDefault(m.group(2), m.group(2));
      if (!unit.isEmpty() && MeasureUnit.parse(unit).isEmpty()) {
        yaml.error(
            node, DslCodes.DSL_023, id, "'" + m.group(2) + "' in '" + t + "' is not a known unit");
        return Optional.empty();
      }
      return Optional.of(m.group(1) + (unit.isEmpty() ? "" : " " + unit));
    }
    if (type instanceof PointType.Enum e) {
      if (!type.accepts(Value.of(t))) {
        yaml.error(
            node,
            DslCodes.DSL_024,
            id,
            "'"
                + t
                + "' is not one of "
                + point.id()
                + "'s values: "
                + String.join(", ", e.values()));
        return Optional.empty();
      }
      return Optional.of(t);
    }
    return Optional.of("\"" + t.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
  }

  private Optional<Condition> compile(String source, int line) {
    Compiled c = ExpressionCompiler.compile(source, new LinkedHashMap<>(inputs));
    c.problems()
        .forEach(
            p ->
                yaml.problems()
                    .expressionError(p.code(), yaml.file(), line, id, asWritten(p.message())));
    return c.condition();
  }

  /** A message of the expression language in the DSL's words: point ids, not input names. */
  private String asWritten(String message) {
    String m = message;
    for (Map.Entry<String, PointSpec> e : inputs.entrySet()) {
      m =
          m.replace(e.getKey() + ".value", e.getValue().id())
              .replace(e.getKey() + ".quality", e.getValue().id() + " quality");
    }
    return m;
  }

  // ---- outputs ------------------------------------------------------------------------------

  private void output(
      Node item, List<ClaimSpec> claims, List<ActionSpec> actions, List<Condition> holdUntil) {
    Optional<Fields> probe = yaml.mapping(item, "then", id, Set.of());
    if (probe.isEmpty()) {
      return;
    }
    Fields o = probe.get();
    SourceRef where = new SourceRef(yaml.file(), YamlFile.line(item));
    if (o.has("emit")) {
      if (onlyKeys(o, Set.of("emit"))) {
        o.get("emit")
            .flatMap(n -> yaml.text(n, "emit", id))
            .ifPresent(e -> actions.add(new ActionSpec.Emit(e, where)));
      }
      return;
    }
    if (o.has("hold_until")) {
      if (onlyKeys(o, Set.of("hold_until"))) {
        o.get("hold_until")
            .flatMap(n -> yaml.text(n, "hold_until", id))
            .flatMap(p -> point(p, item))
            .ifPresent(
                p -> {
                  if (!(p.type() instanceof PointType.Bool)) {
                    yaml.error(
                        item,
                        DslCodes.DSL_031,
                        id,
                        "hold_until names a bool point (a reset); "
                            + p.id()
                            + " is "
                            + p.type().name());
                    return;
                  }
                  compile(declare(p) + ".value == true", YamlFile.line(item))
                      .ifPresent(holdUntil::add);
                });
      }
      return;
    }
    String path;
    String verb;
    Node value;
    if (o.has("output")) {
      List<String> verbs = o.entries().keySet().stream().filter(k -> !k.equals("output")).toList();
      if (verbs.size() != 1 || !Set.of("set", "pulse", "fade_to").contains(verbs.get(0))) {
        yaml.error(
            item,
            DslCodes.DSL_032,
            id,
            "an output takes one of set, pulse, fade_to; found " + verbs);
        return;
      }
      Optional<String> p = o.get("output").flatMap(n -> yaml.text(n, "output", id));
      if (p.isEmpty()) {
        return;
      }
      path = p.get();
      verb = verbs.get(0);
      value = o.get(verb).orElseThrow();
    } else if (o.entries().size() == 1) {
      // Shorthand: {light.court.*.scorebar: freeze} sets, {audio.court.*.horn: pulse_800ms} pulses.
      path = o.entries().keySet().iterator().next();
      value = o.get(path).orElseThrow();
      verb =
          value instanceof ScalarNode s && PULSE_SHORTHAND.matcher(s.getValue()).matches()
              ? "pulse"
              : "set";
    } else {
      yaml.error(
          item,
          DslCodes.DSL_032,
          id,
          "a then item is {output, set|pulse|fade_to}, {emit}, {hold_until} or {<point>: <value>}");
      return;
    }
    List<PointSpec> targets = resolve(path, item);
    for (PointSpec target : targets) {
      if (!target.direction().claimable()) {
        yaml.error(
            item, DslCodes.DSL_033, id, "output " + target.id() + " is an input (direction in)");
        continue;
      }
      switch (verb) {
        case "set" ->
            setValue(value, target)
                .ifPresent(v -> claims.add(new ClaimSpec(target.id(), v, Optional.empty(), where)));
        case "pulse" -> pulse(value, target, where).ifPresent(actions::add);
        default -> fade(value, target, where).ifPresent(actions::add);
      }
    }
  }

  private Optional<Value> setValue(Node node, PointSpec target) {
    if (target.type() instanceof PointType.Number) {
      Optional<String> lit = literal(node, target);
      if (lit.isEmpty()) {
        return Optional.empty();
      }
      String[] parts = lit.get().split(" ");
      double v = Double.parseDouble(parts[0]);
      MeasureUnit unit =
          parts.length > 1 ? MeasureUnit.parse(parts[1]).orElseThrow() : target.unit();
      if (!unit.isCompatible(target.unit())) {
        yaml.error(
            node,
            DslCodes.DSL_025,
            id,
            "cannot set "
                + target.id()
                + " ("
                + target.unit().describe()
                + ") to "
                + lit.get()
                + " ("
                + unit.describe()
                + "): the units are incompatible");
        return Optional.empty();
      }
      Value value = Value.of(unit.converterTo(target.unit()).applyAsDouble(v));
      return ValueReader.inRange(yaml, node, target, value, lit.get(), "set", id);
    }
    return ValueReader.read(yaml, node, target, "set", id);
  }

  private Optional<ActionSpec> pulse(Node node, PointSpec target, SourceRef where) {
    Optional<String> text = yaml.text(node, "pulse", id);
    Optional<Duration> d =
        text.map(t -> PULSE_SHORTHAND.matcher(t).matches() ? t.substring("pulse_".length()) : t)
            .flatMap(YamlFile::parseDuration);
    if (d.isEmpty()) {
      text.ifPresent(
          t -> yaml.error(node, YamlCodes.YAML_020, id, "pulse: '" + t + "' is not a duration"));
      return Optional.empty();
    }
    if (!RuleChecks.pulse(yaml, node, node, target, d, text.get(), id)) {
      return Optional.empty();
    }
    return Optional.of(
        new ActionSpec.Pulse(
            target.id(), d.get(), d.get().toMillis() + "ms", Duration.ZERO, true, where));
  }

  private Optional<ActionSpec> fade(Node node, PointSpec target, SourceRef where) {
    Optional<Fields> f = yaml.mapping(node, "fade_to", id, DocumentShapes.DSL_FADE_TO.keys());
    if (f.isEmpty() || !f.get().has("value") || !f.get().has("over")) {
      f.ifPresent(x -> yaml.error(node, DslCodes.DSL_034, id, "fade_to takes {value, over}"));
      return Optional.empty();
    }
    if (!(target.type() instanceof PointType.Number)) {
      yaml.error(
          node,
          DslCodes.DSL_034,
          id,
          "fade_to needs a number point; " + target.id() + " is " + target.type().name());
      return Optional.empty();
    }
    Optional<Value> v = setValue(f.get().get("value").orElseThrow(), target);
    Optional<Duration> over = yaml.duration(f.get().get("over").orElseThrow(), "over", id);
    if (v.isEmpty() || over.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ActionSpec.Fade(target.id(), v.get(), over.get(), where));
  }

  /**
   * Output paths: a point id, a single segment {@code *}, or a bounded range {@code 4..8}, resolved
   * against the registry when the rule set is loaded (at activation).
   */
  private List<PointSpec> resolve(String written, Node at) {
    String path = bind(written);
    if (!path.contains("*") && !path.contains("..")) {
      return point(path, at).map(List::of).orElse(List.of());
    }
    String[] segments = path.split("\\.", -1);
    List<PointSpec> out = new ArrayList<>();
    for (PointSpec p : registry.points().values()) {
      String[] ids = p.id().split("\\.", -1);
      if (segmentsMatch(segments, ids)) {
        out.add(p);
      }
    }
    if (out.isEmpty()) {
      yaml.error(at, DslCodes.DSL_035, id, "output " + path + " matches no point in the registry");
    }
    return out;
  }

  private static final Pattern RANGE = Pattern.compile("(\\d+)\\.\\.(\\d+)");

  private static boolean segmentsMatch(String[] pattern, String[] id) {
    // Rejoin ranges: "4..8" splits into "4", "", "8".
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < pattern.length; i++) {
      if (i + 2 < pattern.length
          && pattern[i + 1].isEmpty()
          && pattern[i].matches("\\d+")
          && pattern[i + 2].matches("\\d+")) {
        parts.add(pattern[i] + ".." + pattern[i + 2]);
        i += 2;
      } else {
        parts.add(pattern[i]);
      }
    }
    if (parts.size() != id.length) {
      return false;
    }
    for (int i = 0; i < id.length; i++) {
      String p = parts.get(i);
      Matcher r = RANGE.matcher(p);
      if (p.equals("*")) {
        continue;
      }
      if (r.matches()) {
        if (!id[i].matches("\\d+")) {
          return false;
        }
        int n = Integer.parseInt(id[i]);
        if (n < Integer.parseInt(r.group(1)) || n > Integer.parseInt(r.group(2))) {
          return false;
        }
      } else if (!p.equals(id[i])) {
        return false;
      }
    }
    return true;
  }
}
