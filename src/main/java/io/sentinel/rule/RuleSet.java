package io.sentinel.rule;

import io.sentinel.point.Registry;
import java.util.List;
import java.util.Optional;

/** A whole, validated set of rules over one registry: what the engine runs. */
public record RuleSet(Registry registry, List<Rule> rules) {
  public RuleSet {
    rules = List.copyOf(rules);
  }

  public Optional<Rule> rule(String id) {
    return rules.stream().filter(r -> r.id().equals(id)).findFirst();
  }
}
