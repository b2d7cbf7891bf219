package io.sentinel.site.rules;

import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.rule.Trigger;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.ShapeParts;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/** A native rule's {@code trigger:}: when it evaluates (transition, edge, quality, interval). */
final class TriggerReader {
  private static final Map<String, Set<String>> TRIGGER_KEYS =
      ShapeParts.keySets(RuleShapes.TRIGGERS);

  private final YamlFile yaml;

  TriggerReader(YamlFile yaml) {
    this.yaml = yaml;
  }

  Trigger trigger(Fields f, String id, Map<String, PointSpec> inputs) {
    Trigger all = new Trigger.OnTransition(List.copyOf(inputs.keySet()));
    if (!f.has("trigger")) {
      return all;
    }
    Node node = f.get("trigger").orElseThrow();
    Optional<Fields> probe = yaml.mapping(node, "trigger", id, RuleShapes.TRIGGER_KEYS);
    if (probe.isEmpty()) {
      return all;
    }
    Optional<String> on = probe.get().get("on").flatMap(n -> yaml.text(n, "trigger.on", id));
    if (on.isEmpty() || !TRIGGER_KEYS.containsKey(on.get())) {
      yaml.error(
          node,
          RuleCodes.RULE_020,
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
            RuleCodes.RULE_021,
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
                          RuleCodes.RULE_022,
                          id,
                          "an edge needs a bool or number input; "
                              + p.id()
                              + " is "
                              + p.type().name()));
          Optional<String> dir = t.get("edge").flatMap(n -> yaml.text(n, "trigger.edge", id));
          if (dir.isEmpty() || !(dir.get().equals("rising") || dir.get().equals("falling"))) {
            yaml.error(t.node(), RuleCodes.RULE_023, id, "trigger.edge must be rising or falling");
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
                t.node(),
                RuleCodes.RULE_024,
                id,
                "trigger on quality needs to: [stale, unavailable, bad]");
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
                                                              RuleCodes.RULE_025,
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
                t.node(),
                RuleCodes.RULE_026,
                id,
                "trigger on interval needs every: (e.g. every: 5m)");
          } else if (every.isPresent() && every.get().isZero()) {
            yaml.error(
                t.get("every").orElseThrow(),
                RuleCodes.RULE_026,
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
      yaml.error(t.node(), RuleCodes.RULE_027, id, "trigger on " + kind + " needs of: <input>");
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
                  RuleCodes.RULE_028,
                  id,
                  "trigger.of names '"
                      + name
                      + "', which is not a declared input ("
                      + String.join(", ", inputs.keySet())
                      + ")");
              return false;
            });
  }
}
