package io.sentinel.testing;

import io.sentinel.engine.StartMode;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Quality;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import io.sentinel.testing.FixtureCase.Check;
import io.sentinel.testing.FixtureCase.Given;
import io.sentinel.testing.FixtureCase.Step;
import io.sentinel.testing.FixtureCase.Toggle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/** Reads fixture tables ({@code tests/*.yaml}) against a loaded rule set. */
public final class FixtureLoader {
  private static final Set<String> CHECK_KEYS =
      Set.of(
          "expect_claims",
          "expect_outputs",
          "expect_state",
          "expect_actions",
          "expect_events",
          "expect_points",
          "expect_firings");
  private static final Set<String> CASE_KEYS =
      union(CHECK_KEYS, Set.of("name", "rule", "start", "start_at", "given", "steps"));
  private static final Set<String> STEP_KEYS =
      union(CHECK_KEYS, Set.of("at", "set", "lag", "toggle", "restart"));

  private final YamlFile yaml;
  private final RuleSet ruleSet;

  private FixtureLoader(YamlFile yaml, RuleSet ruleSet) {
    this.yaml = yaml;
    this.ruleSet = ruleSet;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> s = new java.util.HashSet<>(a);
    s.addAll(b);
    return Set.copyOf(s);
  }

  public static List<FixtureCase> load(
      String file, String text, RuleSet ruleSet, Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    FixtureLoader loader = new FixtureLoader(yaml, ruleSet);
    List<FixtureCase> cases = new ArrayList<>();
    yaml.parse(text)
        .flatMap(root -> yaml.sequence(root, "fixture table", ""))
        .ifPresent(items -> items.forEach(n -> loader.fixtureCase(n).ifPresent(cases::add)));
    return cases;
  }

  private Optional<FixtureCase> fixtureCase(Node node) {
    Optional<Fields> maybe = yaml.mapping(node, "fixture case", "", CASE_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    Optional<String> rule = f.get("rule").flatMap(n -> yaml.text(n, "rule", ""));
    rule.filter(r -> ruleSet.rule(r).isEmpty())
        .ifPresent(
            r ->
                yaml.error(
                    f.get("rule").orElseThrow(),
                    FixtureCodes.FIX_001,
                    r,
                    "no rule with this id in the rule set"));
    String label = rule.orElse("");
    String name =
        f.get("name")
            .flatMap(n -> yaml.text(n, "name", label))
            .orElse(label.isEmpty() ? "case" : label);
    StartMode start = StartMode.WARM;
    Optional<String> startText = f.get("start").flatMap(n -> yaml.text(n, "start", label));
    if (startText.isPresent()) {
      if (startText.get().equals("cold")) {
        start = StartMode.COLD;
      } else if (!startText.get().equals("warm")) {
        yaml.error(
            f.get("start").orElseThrow(), FixtureCodes.FIX_002, label, "start is warm or cold");
      }
    }
    List<Given> given = f.get("given").map(n -> points(n, "given", label)).orElse(List.of());
    Check initial = check(f, label);
    if (initial.claims().isPresent() && rule.isEmpty()) {
      yaml.error(node, FixtureCodes.FIX_003, "", "expect_claims needs the case's rule");
    }
    List<Step> steps = new ArrayList<>();
    f.get("steps")
        .flatMap(n -> yaml.sequence(n, "steps", label))
        .ifPresent(
            items -> items.forEach(s -> step(s, label, rule.isPresent()).ifPresent(steps::add)));
    for (int i = 1; i < steps.size(); i++) {
      if (steps.get(i).at().compareTo(steps.get(i - 1).at()) < 0) {
        yaml.problems()
            .error(
                FixtureCodes.FIX_004,
                yaml.file(),
                steps.get(i).where().line(),
                label,
                "steps must be in time order (at:)");
      }
    }
    return Optional.of(
        new FixtureCase(
            name,
            rule,
            start,
            startAt(f, label),
            given,
            initial,
            steps,
            new SourceRef(yaml.file(), YamlFile.line(node))));
  }

  private Optional<Step> step(Node node, String label, boolean hasRule) {
    Optional<Fields> maybe = yaml.mapping(node, "step", label, STEP_KEYS);
    if (maybe.isEmpty()) {
      return Optional.empty();
    }
    Fields f = maybe.get();
    if (!f.has("at")) {
      yaml.error(
          node,
          FixtureCodes.FIX_005,
          label,
          "a step needs at: (time since the case started, e.g. 30s)");
      return Optional.empty();
    }
    Optional<Duration> at = yaml.duration(f.get("at").orElseThrow(), "at", label);
    List<Given> set = f.get("set").map(n -> points(n, "set", label)).orElse(List.of());
    Optional<Boolean> lag = f.get("lag").flatMap(n -> yaml.bool(n, "lag", label));
    Optional<Toggle> toggle = f.get("toggle").flatMap(n -> toggle(n, label));
    boolean restart = f.get("restart").flatMap(n -> yaml.bool(n, "restart", label)).orElse(false);
    Check check = check(f, label);
    if (check.claims().isPresent() && !hasRule) {
      yaml.error(node, FixtureCodes.FIX_003, "", "expect_claims needs the case's rule");
    }
    return at.map(
        a ->
            new Step(
                a,
                set,
                toggle,
                lag,
                restart,
                check,
                new SourceRef(yaml.file(), YamlFile.line(node))));
  }

  /**
   * {@code start_at}: an instant with its offset (2026-03-29T00:30:00Z); else the default start.
   */
  private java.time.Instant startAt(Fields f, String label) {
    Optional<String> text = f.get("start_at").flatMap(n -> yaml.text(n, "start_at", label));
    if (text.isEmpty()) {
      return FixtureRunner.START;
    }
    try {
      return java.time.OffsetDateTime.parse(text.get()).toInstant();
    } catch (java.time.format.DateTimeParseException e) {
      yaml.error(
          f.get("start_at").orElseThrow(),
          FixtureCodes.FIX_009,
          label,
          "start_at '" + text.get() + "' is not an instant with offset (2026-03-29T00:30:00Z)");
      return FixtureRunner.START;
    }
  }

  private Optional<Toggle> toggle(Node node, String label) {
    return yaml.mapping(node, "toggle", label, Set.of("point", "values", "times", "every"))
        .flatMap(
            t -> {
              Optional<PointSpec> point = t.get("point").flatMap(n -> point(n, label));
              Optional<Double> times = t.get("times").flatMap(n -> yaml.number(n, "times", label));
              Optional<Duration> every =
                  t.get("every").flatMap(n -> yaml.duration(n, "every", label));
              List<Value> values = new ArrayList<>();
              point.ifPresent(
                  p ->
                      t.get("values")
                          .flatMap(n -> yaml.sequence(n, "values", label))
                          .ifPresent(
                              l ->
                                  l.forEach(
                                      v ->
                                          ValueReader.read(yaml, v, p, "toggle value", label)
                                              .ifPresent(values::add))));
              if (point.isEmpty() || times.isEmpty() || every.isEmpty() || values.size() < 2) {
                yaml.error(
                    node,
                    FixtureCodes.FIX_006,
                    label,
                    "toggle needs point, values (two or more), times and every");
                return Optional.empty();
              }
              return Optional.of(
                  new Toggle(point.get().id(), values, times.get().intValue(), every.get()));
            });
  }

  private Optional<PointSpec> point(Node node, String label) {
    return yaml.text(node, "point", label)
        .flatMap(
            id -> {
              Optional<PointSpec> p = ruleSet.registry().find(id);
              if (p.isEmpty()) {
                yaml.error(
                    node, FixtureCodes.FIX_007, label, "point '" + id + "' is not in the registry");
              }
              return p;
            });
  }

  private List<Given> points(Node node, String field, String label) {
    List<Given> out = new ArrayList<>();
    yaml.mapping(node, field, label, Set.of())
        .ifPresent(
            m ->
                m.entries()
                    .forEach(
                        (id, v) ->
                            point(m.keyNode(id), label)
                                .flatMap(p -> given(p, v, label))
                                .ifPresent(out::add)));
    return out;
  }

  private Optional<Given> given(PointSpec point, Node node, String label) {
    Optional<Fields> f = yaml.mapping(node, point.id(), label, Set.of("value", "quality"));
    if (f.isEmpty()) {
      return Optional.empty();
    }
    Quality quality = Quality.LIVE;
    Optional<String> q = f.get().get("quality").flatMap(n -> yaml.text(n, "quality", label));
    if (q.isPresent()) {
      Optional<Quality> parsed = Quality.parse(q.get());
      if (parsed.isEmpty()) {
        yaml.error(
            f.get().get("quality").orElseThrow(),
            FixtureCodes.FIX_008,
            label,
            "'" + q.get() + "' is not a quality");
        return Optional.empty();
      }
      quality = parsed.get();
    }
    Optional<Node> valueNode = f.get().get("value");
    if (valueNode.isEmpty()) {
      return Optional.of(new Given(point.id(), Value.ABSENT, quality));
    }
    final Quality finalQuality = quality;
    return ValueReader.read(yaml, valueNode.get(), point, "value", label)
        .map(v -> new Given(point.id(), v, finalQuality));
  }

  private Check check(Fields f, String label) {
    Optional<Map<String, Value>> claims = f.get("expect_claims").map(n -> claims(n, label));
    Optional<Map<String, FixtureCase.Output>> outputs =
        f.get("expect_outputs").map(n -> outputs(n, label));
    Optional<String> state =
        f.get("expect_state").flatMap(n -> yaml.text(n, "expect_state", label));
    List<Map<String, String>> actions =
        f.get("expect_actions").map(n -> records(n, "expect_actions", label)).orElse(List.of());
    List<Map<String, String>> events =
        f.get("expect_events").map(n -> records(n, "expect_events", label)).orElse(List.of());
    Map<String, Given> points = new LinkedHashMap<>();
    f.get("expect_points")
        .map(n -> points(n, "expect_points", label))
        .orElse(List.of())
        .forEach(g -> points.put(g.pointId(), g));
    Optional<List<String>> firings =
        f.get("expect_firings")
            .flatMap(n -> yaml.sequence(n, "expect_firings", label))
            .map(
                l ->
                    l.stream()
                        .flatMap(x -> yaml.text(x, "expect_firings", label).stream())
                        .toList());
    return new Check(
        claims,
        outputs,
        state,
        actions,
        f.has("expect_actions") && actions.isEmpty(),
        events,
        points,
        firings);
  }

  private Map<String, Value> claims(Node node, String label) {
    Map<String, Value> out = new LinkedHashMap<>();
    yaml.sequence(node, "expect_claims", label)
        .ifPresent(
            items ->
                items.forEach(
                    item ->
                        yaml.mapping(item, "expected claim", label, Set.of("point", "value"))
                            .ifPresent(
                                c ->
                                    c.get("point")
                                        .flatMap(n -> point(n, label))
                                        .ifPresent(
                                            p ->
                                                c.get("value")
                                                    .flatMap(
                                                        v ->
                                                            ValueReader.read(
                                                                yaml,
                                                                v,
                                                                p,
                                                                "expected value",
                                                                label))
                                                    .ifPresent(v -> out.put(p.id(), v))))));
    return out;
  }

  private Map<String, FixtureCase.Output> outputs(Node node, String label) {
    Map<String, FixtureCase.Output> out = new LinkedHashMap<>();
    yaml.mapping(node, "expect_outputs", label, Set.of())
        .ifPresent(
            m ->
                m.entries()
                    .forEach(
                        (id, v) ->
                            point(m.keyNode(id), label)
                                .flatMap(p -> output(p, v, label))
                                .ifPresent(o -> out.put(id, o))));
    return out;
  }

  /** {@code released}, a value, or {value, rule, deciding_key}. */
  private Optional<FixtureCase.Output> output(PointSpec p, Node v, String label) {
    Optional<String> rule = Optional.empty();
    Optional<String> key = Optional.empty();
    Node valueNode = v;
    if (v instanceof org.snakeyaml.engine.v2.nodes.MappingNode) {
      Optional<Fields> f =
          yaml.mapping(v, "expected output", label, Set.of("value", "rule", "deciding_key"));
      if (f.isEmpty()) {
        return Optional.empty();
      }
      rule = f.get().get("rule").flatMap(n -> yaml.text(n, "rule", label));
      key = f.get().get("deciding_key").flatMap(n -> yaml.text(n, "deciding_key", label));
      if (!f.get().has("value")) {
        return Optional.of(new FixtureCase.Output(Optional.empty(), rule, key));
      }
      valueNode = f.get().get("value").orElseThrow();
    }
    if (YamlFile.isPlain(valueNode)
        && yaml.text(valueNode, "value", label).filter("released"::equals).isPresent()) {
      return Optional.of(new FixtureCase.Output(Optional.empty(), rule, key));
    }
    Optional<String> r = rule;
    Optional<String> k = key;
    return ValueReader.read(yaml, valueNode, p, "expected output", label)
        .map(x -> new FixtureCase.Output(Optional.of(x), r, k));
  }

  private List<Map<String, String>> records(Node node, String field, String label) {
    List<Map<String, String>> out = new ArrayList<>();
    yaml.sequence(node, field, label)
        .ifPresent(
            items ->
                items.forEach(
                    item ->
                        yaml.mapping(item, field, label, Set.of())
                            .ifPresent(
                                m -> {
                                  Map<String, String> r = new LinkedHashMap<>();
                                  m.entries()
                                      .forEach(
                                          (k, v) ->
                                              yaml.text(v, k, label).ifPresent(t -> r.put(k, t)));
                                  out.add(r);
                                })));
    return out;
  }
}
