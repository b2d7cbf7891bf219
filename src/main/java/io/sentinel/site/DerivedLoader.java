package io.sentinel.site;

import io.sentinel.derived.DerivedKind;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.derived.DerivedSet;
import io.sentinel.expr.Compiled;
import io.sentinel.expr.Condition;
import io.sentinel.expr.ExpressionCompiler;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.site.yaml.PointShapes;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.ShapeParts;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads {@code derived.yaml}. Derived points may read registry points and other derived points;
 * they are built in dependency order, so a point's type can follow its input's, and a cycle is a
 * load error that names it.
 */
public final class DerivedLoader {
  // The keys of each kind, the common ones included: declared once, in DocumentShapes.
  private static final Map<String, Set<String>> KEYS =
      ShapeParts.keySets(PointShapes.DERIVED_KINDS);

  private final YamlFile yaml;
  private final Registry registry;
  private final Map<String, PointSpec> built = new HashMap<>();

  private DerivedLoader(YamlFile yaml, Registry registry) {
    this.yaml = yaml;
    this.registry = registry;
  }

  /** The derived points of {@code derived.yaml}, in dependency order. */
  public static DerivedSet load(String file, String text, Registry registry, Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    return yaml.parse(text)
        .flatMap(root -> yaml.mapping(root, "derived.yaml", "", PointShapes.DERIVED_FILE.keys()))
        .flatMap(top -> top.get("derived"))
        .map(n -> fromNode(yaml, n, registry))
        .orElse(DerivedSet.EMPTY);
  }

  /** The derived points of an already parsed {@code derived:} mapping (a revision document's). */
  public static DerivedSet fromNode(YamlFile yaml, Node derivedNode, Registry registry) {
    return yaml.mapping(derivedNode, "derived", "", Set.of())
        .map(entries -> new DerivedLoader(yaml, registry).all(entries))
        .orElse(DerivedSet.EMPTY);
  }

  private record Entry(String id, Node key, Fields fields, String kind, List<String> reads) {}

  private DerivedSet all(Fields entries) {
    Map<String, Entry> byId = new LinkedHashMap<>();
    entries
        .entries()
        .forEach(
            (id, node) -> entry(id, entries.keyNode(id), node).ifPresent(e -> byId.put(id, e)));
    Map<String, List<String>> reads = new LinkedHashMap<>();
    byId.values().forEach(e -> reads.put(e.id(), new ArrayList<>(e.reads())));
    DerivedSet.Ordering ordering = DerivedSet.order(reads);
    // Report each cycle and leave its members out, so the rest of the file is still checked.
    while (ordering.cycle().isPresent()) {
      List<String> cycle = ordering.cycle().get();
      yaml.error(
          byId.get(cycle.get(0)).key(),
          SiteCodes.DER_010,
          "",
          "derived points form a cycle: " + String.join(" -> ", cycle));
      cycle.forEach(reads::remove);
      reads.values().forEach(r -> r.removeAll(cycle));
      ordering = DerivedSet.order(reads);
    }
    List<DerivedPoint> out = new ArrayList<>();
    for (String id : ordering.order()) {
      point(byId.get(id))
          .ifPresent(
              p -> {
                out.add(p);
                built.put(id, p.spec());
              });
    }
    return new DerivedSet(out);
  }

  private Optional<Entry> entry(String id, Node key, Node node) {
    String what = "derived point " + id;
    if (registry.find(id).isPresent()) {
      yaml.error(
          key, SiteCodes.DER_001, "", what + ": the registry already has a point with this id");
      return Optional.empty();
    }
    Optional<Fields> probe = yaml.mapping(node, what, "", Set.of());
    if (probe.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> kind = probe.get().get("kind").flatMap(n -> yaml.text(n, what + " kind", ""));
    if (kind.isEmpty() || !KEYS.containsKey(kind.get())) {
      yaml.error(
          node,
          SiteCodes.DER_002,
          "",
          what
              + ": kind must be one of "
              + String.join(", ", new java.util.TreeSet<>(KEYS.keySet()))
              + kind.map(k -> " (found '" + k + "')").orElse(""));
      return Optional.empty();
    }
    Optional<Fields> f = yaml.mapping(node, what, "", KEYS.get(kind.get()));
    if (f.isEmpty()) {
      return Optional.empty();
    }
    List<String> reads = new ArrayList<>();
    f.get().get("of").flatMap(n -> yaml.text(n, what + " of", "")).ifPresent(reads::add);
    if (kind.get().equals("sequence")) {
      f.get()
          .get("steps")
          .flatMap(n -> yaml.sequence(n, what + " steps", ""))
          .ifPresent(
              steps ->
                  steps.forEach(
                      s -> {
                        if (s instanceof org.snakeyaml.engine.v2.nodes.MappingNode m) {
                          m.getValue().stream()
                              .filter(
                                  t ->
                                      t.getKeyNode()
                                              instanceof org.snakeyaml.engine.v2.nodes.ScalarNode k
                                          && k.getValue().equals("of"))
                              .findFirst()
                              .flatMap(t -> yaml.text(t.getValueNode(), "step of", ""))
                              .filter(o -> !reads.contains(o))
                              .ifPresent(reads::add);
                        }
                      }));
    } else if (!f.get().has("of")) {
      yaml.error(node, SiteCodes.DER_003, "", what + ": of (the point it reads) is missing");
      return Optional.empty();
    }
    if (reads.isEmpty()) {
      yaml.error(node, SiteCodes.DER_003, "", what + ": a sequence needs of, or of on its steps");
      return Optional.empty();
    }
    return Optional.of(new Entry(id, key, f.get(), kind.get(), reads));
  }

  private Optional<PointSpec> input(String id, Node at, String what) {
    Optional<PointSpec> p = Optional.ofNullable(built.get(id)).or(() -> registry.find(id));
    if (p.isEmpty()) {
      yaml.error(
          at,
          SiteCodes.DER_004,
          "",
          what + ": point '" + id + "' is neither in the registry nor a valid derived point");
    }
    return p;
  }

  private Optional<DerivedPoint> point(Entry e) {
    String what = "derived point " + e.id();
    Fields f = e.fields();
    Node ofNode = f.get("of").orElse(f.node());
    List<PointSpec> inputs = new ArrayList<>();
    for (String id : e.reads()) {
      input(id, ofNode, what).ifPresent(inputs::add);
    }
    if (inputs.size() != e.reads().size()) {
      return Optional.empty();
    }
    PointSpec of = inputs.get(0);
    Optional<DerivedKind> kind = kind(e, f, of, inputs, what);
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    PointType type =
        switch (e.kind()) {
          case "hysteresis", "absence" -> new PointType.Bool();
          case "debounce" -> of.type();
          case "rolling_avg" -> new PointType.Number(of.unit());
          case "age" -> new PointType.Number(MeasureUnit.parse("s").orElseThrow());
          default -> new PointType.Number(MeasureUnit.NONE);
        };
    double deadband =
        f.get("deadband").flatMap(n -> yaml.number(n, what + " deadband", "")).orElse(0.0);
    PointSpec spec =
        PointSpec.computed(
            e.id(), type, deadband, new SourceRef(yaml.file(), YamlFile.line(e.key())));
    return Optional.of(
        new DerivedPoint(
            spec, kind.get(), e.reads(), io.sentinel.site.rules.DefinitionHash.of(f.node())));
  }

  private Optional<DerivedKind> kind(
      Entry e, Fields f, PointSpec of, List<PointSpec> inputs, String what) {
    switch (e.kind()) {
      case "hysteresis":
        {
          if (!number(of, f, what)) {
            return Optional.empty();
          }
          Optional<Double> on =
              required(f, "on_above", what).flatMap(n -> yaml.number(n, "on_above", ""));
          Optional<Double> off =
              required(f, "off_below", what).flatMap(n -> yaml.number(n, "off_below", ""));
          if (on.isPresent() && off.isPresent() && on.get() <= off.get()) {
            yaml.error(
                f.get("on_above").orElseThrow(),
                SiteCodes.DER_006,
                "",
                what + ": on_above must be above off_below");
            return Optional.empty();
          }
          return on.isPresent() && off.isPresent()
              ? Optional.of(new DerivedKind.Hysteresis(on.get(), off.get()))
              : Optional.empty();
        }
      case "debounce":
        return window(f, "stable_for", what).map(DerivedKind.Debounce::new);
      case "rolling_avg":
        return number(of, f, what)
            ? window(f, "window", what).map(DerivedKind.RollingAvg::new)
            : Optional.empty();
      case "rate":
        return number(of, f, what)
            ? window(f, "window", what).map(DerivedKind.Rate::new)
            : Optional.empty();
      case "age":
        {
          if (!f.has("every")) {
            return Optional.of(new DerivedKind.Age(Duration.ofSeconds(1)));
          }
          return window(f, "every", what).map(DerivedKind.Age::new);
        }
      case "count":
        {
          Optional<Condition> when = when(f, of, what);
          Optional<Integer> atLeast = count(f, "at_least", what);
          Optional<Duration> within = window(f, "within", what);
          return when.isPresent() && atLeast.isPresent() && within.isPresent()
              ? Optional.of(new DerivedKind.Count(when.get(), atLeast.get(), within.get()))
              : Optional.empty();
        }
      case "absence":
        {
          Optional<Condition> when = when(f, of, what);
          Optional<Duration> within = window(f, "within", what);
          return when.isPresent() && within.isPresent()
              ? Optional.of(new DerivedKind.Absence(when.get(), within.get()))
              : Optional.empty();
        }
      case "sequence":
        return sequence(e, f, inputs, what);
      case "dedupe":
        return window(f, "within", what).map(DerivedKind.Dedupe::new);
      default:
        {
          Optional<Integer> atMost = count(f, "at_most", what);
          Optional<Duration> per = window(f, "per", what);
          return atMost.isPresent() && per.isPresent()
              ? Optional.of(new DerivedKind.Throttle(atMost.get(), per.get()))
              : Optional.empty();
        }
    }
  }

  private Optional<DerivedKind> sequence(Entry e, Fields f, List<PointSpec> inputs, String what) {
    Optional<Duration> within = window(f, "within", what);
    List<DerivedKind.Step> steps = new ArrayList<>();
    Optional<List<Node>> nodes =
        required(f, "steps", what).flatMap(n -> yaml.sequence(n, what + " steps", ""));
    if (nodes.isEmpty()) {
      return Optional.empty();
    }
    boolean ok = true;
    for (Node n : nodes.get()) {
      Optional<Fields> s = yaml.mapping(n, what + " step", "", PointShapes.DERIVED_STEP.keys());
      if (s.isEmpty()) {
        ok = false;
        continue;
      }
      String id = s.get().get("of").flatMap(x -> yaml.text(x, "of", "")).orElse(e.reads().get(0));
      int input = e.reads().indexOf(id);
      Optional<Condition> when = when(s.get(), inputs.get(input), what);
      if (when.isEmpty()) {
        ok = false;
      } else {
        steps.add(new DerivedKind.Step(input, when.get()));
      }
    }
    if (nodes.get().size() < 2) {
      yaml.error(
          f.get("steps").orElseThrow(),
          SiteCodes.DER_007,
          "",
          what + ": a sequence needs at least two steps");
      return Optional.empty();
    }
    return ok && within.isPresent()
        ? Optional.of(new DerivedKind.Sequence(steps, within.get()))
        : Optional.empty();
  }

  private boolean number(PointSpec of, Fields f, String what) {
    if (of.type() instanceof PointType.Number) {
      return true;
    }
    yaml.error(
        f.get("of").orElse(f.node()),
        SiteCodes.DER_005,
        "",
        what
            + ": "
            + f.get("kind").flatMap(n -> yaml.text(n, "kind", "")).orElse("")
            + " needs a number input; "
            + of.id()
            + " is "
            + of.type().name());
    return false;
  }

  private Optional<Node> required(Fields f, String key, String what) {
    if (!f.has(key)) {
      yaml.error(f.node(), SiteCodes.DER_008, "", what + ": " + key + " is missing");
    }
    return f.get(key);
  }

  private Optional<Duration> window(Fields f, String key, String what) {
    Optional<Duration> d =
        required(f, key, what).flatMap(n -> yaml.duration(n, what + ": " + key, ""));
    if (d.isPresent() && d.get().isZero()) {
      yaml.error(
          f.get(key).orElseThrow(),
          SiteCodes.DER_009,
          "",
          what + ": " + key + " must be longer than zero");
      return Optional.empty();
    }
    return d;
  }

  private Optional<Integer> count(Fields f, String key, String what) {
    Optional<Double> n = required(f, key, what).flatMap(x -> yaml.number(x, key, ""));
    if (n.isPresent() && (n.get() < 1 || n.get() != Math.rint(n.get()))) {
      yaml.error(
          f.get(key).orElseThrow(),
          SiteCodes.DER_011,
          "",
          what + ": " + key + " is a whole number, at least 1");
      return Optional.empty();
    }
    return n.map(Double::intValue);
  }

  /**
   * A condition on the input's {@code value} and {@code quality}; without one, any value matches.
   */
  private Optional<Condition> when(Fields f, PointSpec of, String what) {
    String source = f.get("when").flatMap(n -> yaml.text(n, "when", "")).orElse("true");
    Compiled c = ExpressionCompiler.compileAbout(source, of);
    int line = f.get("when").map(YamlFile::line).orElse(YamlFile.line(f.node()));
    c.problems()
        .forEach(
            p ->
                yaml.problems()
                    .expressionError(
                        p.code(), yaml.file(), line, "", what + " when: " + p.message()));
    return c.condition();
  }
}
