package io.sentinel.site.dsl;

import io.sentinel.expr.Condition;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.site.rules.RuleChecks;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlCodes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * The {@code then:} of a DSL rule: outputs set (claims), pulsed and faded (once-per-firing
 * actions), events emitted and the hold_until latch, over point paths with {@code *} and ranges.
 */
final class DslOutputs {
  private static final Pattern PULSE_SHORTHAND = Pattern.compile("pulse_(\\d+(?:ms|s|m))");
  private static final Pattern RANGE = Pattern.compile("(\\d+)\\.\\.(\\d+)");

  private final DslScope scope;
  private final YamlFile yaml;
  private final String id;

  DslOutputs(DslScope scope) {
    this.scope = scope;
    this.yaml = scope.yaml;
    this.id = scope.id;
  }

  void output(
      Node item, List<ClaimSpec> claims, List<ActionSpec> actions, List<Condition> holdUntil) {
    Optional<Fields> probe = yaml.mapping(item, "then", id, Set.of());
    if (probe.isEmpty()) {
      return;
    }
    Fields o = probe.get();
    SourceRef where = new SourceRef(yaml.file(), YamlFile.line(item));
    if (o.has("emit")) {
      if (scope.onlyKeys(o, Set.of("emit"))) {
        o.get("emit")
            .flatMap(n -> yaml.text(n, "emit", id))
            .ifPresent(e -> actions.add(new ActionSpec.Emit(e, where)));
      }
      return;
    }
    if (o.has("hold_until")) {
      if (scope.onlyKeys(o, Set.of("hold_until"))) {
        o.get("hold_until")
            .flatMap(n -> yaml.text(n, "hold_until", id))
            .flatMap(p -> scope.point(p, item))
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
                  scope
                      .compile(scope.declare(p) + ".value == true", YamlFile.line(item))
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
      Optional<String> lit = scope.literal(node, target);
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
    Optional<Fields> f = yaml.mapping(node, "fade_to", id, RuleShapes.DSL_FADE_TO.keys());
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
    String path = scope.bind(written);
    if (!path.contains("*") && !path.contains("..")) {
      return scope.point(path, at).map(List::of).orElse(List.of());
    }
    String[] segments = path.split("\\.", -1);
    List<PointSpec> out = new ArrayList<>();
    for (PointSpec p : scope.registry.points().values()) {
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
