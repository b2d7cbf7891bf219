package io.sentinel.site.rules;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.point.SourceRef;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.MessageTemplate;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.ShapeParts;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/** A native rule's {@code actions:}: notifications and pulses, each with its cooldown. */
final class ActionReader {
  private static final Map<String, Set<String>> ACTION_KEYS =
      ShapeParts.keySets(RuleShapes.ACTIONS);

  private final YamlFile yaml;
  private final Registry registry;

  ActionReader(YamlFile yaml, Registry registry) {
    this.yaml = yaml;
    this.registry = registry;
  }

  List<ActionSpec> actions(Fields f, String id, Map<String, PointSpec> inputs) {
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
          RuleCodes.RULE_060,
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
          RuleCodes.RULE_061,
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
    SourceRef where = new SourceRef(yaml.file(), YamlFile.line(item));
    if (kind.get().equals("notify")) {
      for (String required : List.of("channel", "message")) {
        if (!a.has(required)) {
          yaml.error(item, RuleCodes.RULE_062, id, "action notify needs " + required);
        }
      }
      Node message = a.get("message").orElse(item);
      for (String name : MessageTemplate.names(fields.getOrDefault("message", ""))) {
        if (MessageTemplate.parse(name, fields.keySet(), inputs.keySet()).isEmpty()) {
          yaml.error(
              message,
              RuleCodes.RULE_063,
              id,
              "message placeholder {{ "
                  + name
                  + " }} is neither an action field nor <input>.value / <input>.quality nor rule");
        }
      }
    } else {
      Optional<PointSpec> point = RuleChecks.claimTarget(yaml, registry, a, id, "pulse");
      Optional<Duration> duration =
          a.get("duration").flatMap(n -> yaml.duration(n, "duration", id));
      if (!a.has("duration")) {
        yaml.error(item, RuleCodes.RULE_065, id, "action pulse needs a duration");
      }
      boolean fits =
          point
              .map(
                  p ->
                      RuleChecks.pulse(
                          yaml,
                          a.get("point").orElseThrow(),
                          a.get("duration").orElse(item),
                          p,
                          duration,
                          fields.get("duration"),
                          id))
              .orElse(false);
      if (!fits || duration.isEmpty() || cooldown.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          new ActionSpec.Pulse(
              point.get().id(),
              duration.get(),
              fields.get("duration"),
              cooldown.get(),
              false,
              where));
    }
    if (cooldown.isEmpty() || !fields.containsKey("channel") || !fields.containsKey("message")) {
      return Optional.empty();
    }
    return Optional.of(
        new ActionSpec.Notify(
            fields.get("channel"),
            fields.get("message"),
            Optional.ofNullable(fields.get("zone")),
            Optional.ofNullable(fields.get("severity")),
            cooldown.get(),
            where));
  }
}
