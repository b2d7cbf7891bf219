package io.sentinel.site.dsl;

import io.sentinel.derived.DerivedKind;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.expr.Condition;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The {@code when:} of a DSL rule: {@code all:}/{@code any:} over conditions on inputs, events,
 * time of day, zones and changes, each compiled to the expression language (docs/dsl.md).
 */
final class DslConditions {
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

  private static final int REGEX_LIMIT = 128;

  private final DslScope scope;
  private final YamlFile yaml;
  private final String id;

  /** The point of the rule's {@code event:} condition, which {@code confidence_gte} qualifies. */
  private String eventPoint;

  DslConditions(DslScope scope) {
    this.scope = scope;
    this.yaml = scope.yaml;
    this.id = scope.id;
  }

  Optional<Condition> when(Fields f) {
    if (!f.has("when")) {
      yaml.error(
          f.node(),
          DslCodes.DSL_010,
          id,
          "when is missing: all: or any: with a list of conditions");
      return Optional.empty();
    }
    Optional<Fields> w =
        yaml.mapping(f.get("when").orElseThrow(), "when", id, RuleShapes.DSL_WHEN.keys());
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
      return scope.onlyKeys(c, Set.of("zone"))
          ? scope.compile("true", YamlFile.line(node))
          : Optional.empty();
    }
    if (c.has("event")) {
      if (!scope.onlyKeys(c, Set.of("event"))) {
        return Optional.empty();
      }
      Optional<String> e = c.get("event").flatMap(n -> yaml.text(n, "event", id));
      if (e.isEmpty()) {
        return Optional.empty();
      }
      // An event of a zone is the zone's point of that name: court.3 + scoreboard.period_end.
      String pointId = scope.boundZone == null ? e.get() : scope.boundZone + "." + e.get();
      Optional<PointSpec> p = scope.point(pointId, node);
      if (p.isPresent() && !(p.get().type() instanceof PointType.Bool)) {
        yaml.error(
            node,
            DslCodes.DSL_042,
            id,
            "event " + pointId + " must be a bool point, it is " + p.get().type().name());
        return Optional.empty();
      }
      eventPoint = pointId;
      return p.flatMap(
          x -> scope.compile(scope.declare(x) + ".value == true", YamlFile.line(node)));
    }
    if (c.has("confidence_gte")) {
      if (!scope.onlyKeys(c, Set.of("confidence_gte"))) {
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
      Optional<PointSpec> p = scope.point(eventPoint + ".confidence", node);
      Node v = c.get("confidence_gte").orElseThrow();
      return p.flatMap(
          x ->
              scope
                  .literal(v, x)
                  .flatMap(
                      l ->
                          scope.compile(scope.declare(x) + ".value >= " + l, YamlFile.line(node))));
    }
    if (c.has("time_of_day")) {
      return scope.onlyKeys(c, Set.of("time_of_day"))
          ? timeOfDay(c.get("time_of_day").orElseThrow())
          : Optional.empty();
    }
    if (c.has("changed") && !c.has("input")) {
      return scope.onlyKeys(c, Set.of("changed"))
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
            ? scope.builtin("age(" + path.get() + ")", node)
            : scope.builtin(path.get(), node);
    if (point.isEmpty()) {
      return Optional.empty();
    }
    String name = scope.declare(point.get());
    int line = YamlFile.line(valueNode);
    switch (op) {
      case "matches":
        return matches(point.get(), name, valueNode);
      case "stale_for":
        return yaml.duration(valueNode, "stale_for", id)
            .flatMap(d -> scope.compile(name + ".value >= " + d.toMillis() + " ms", line));
      case "between":
        {
          Optional<List<Node>> range = yaml.sequence(valueNode, "between", id);
          if (range.isEmpty() || range.get().size() != 2) {
            range.ifPresent(
                r -> yaml.error(valueNode, DslCodes.DSL_013, id, "between takes [low, high]"));
            return Optional.empty();
          }
          Optional<String> lo = scope.literal(range.get().get(0), point.get());
          Optional<String> hi = scope.literal(range.get().get(1), point.get());
          return lo.isPresent() && hi.isPresent()
              ? scope.compile(
                  name + ".value >= " + lo.get() + " and " + name + ".value <= " + hi.get(), line)
              : Optional.empty();
        }
      case "in":
      case "not_in":
        {
          List<String> items = new ArrayList<>();
          for (Node item : yaml.oneOrMany(valueNode)) {
            Optional<String> l = scope.literal(item, point.get());
            if (l.isEmpty()) {
              return Optional.empty();
            }
            items.add(l.get());
          }
          String in = op.equals("in") ? " in [" : " not in [";
          return scope.compile(name + ".value" + in + String.join(", ", items) + "]", line);
        }
      default:
        return scope
            .literal(valueNode, point.get())
            .flatMap(l -> scope.compile(name + ".value " + COMPARISON.get(op) + " " + l, line));
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
    boolean in = scope.boundZone != null && zones.contains(scope.boundZone);
    boolean holds = op.startsWith("not") ? scope.boundZone != null && !in : in;
    return scope.compile(holds ? "true" : "false", YamlFile.line(valueNode));
  }

  private Optional<Condition> changed(String path, Node at) {
    return scope
        .builtin(path, at)
        .map(
            p ->
                new DslCondition.Changed(
                    scope.slotOf(scope.declare(p)), scope.declare(p), "changed " + path));
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
              scope.slotOf(name), name, com.google.re2j.Pattern.compile(re.get()), re.get()));
    } catch (com.google.re2j.PatternSyntaxException e) {
      yaml.error(
          valueNode, DslCodes.DSL_016, id, "matches: not an RE2 expression: " + e.getDescription());
      return Optional.empty();
    }
  }

  private Optional<Condition> timeOfDay(Node node) {
    Optional<Fields> f = yaml.mapping(node, "time_of_day", id, RuleShapes.DSL_TIME_OF_DAY.keys());
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
    PointSpec spec = scope.generatedSpec(pointId, new PointType.Bool());
    scope.generated.putIfAbsent(
        pointId,
        new DerivedPoint(
            spec,
            new DerivedKind.TimeWindow(from, to, scope.zone),
            List.of(),
            "tod:" + from + to + scope.zone));
    String name = scope.declare(spec);
    return scope.compile(name + ".value", YamlFile.line(node));
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
}
