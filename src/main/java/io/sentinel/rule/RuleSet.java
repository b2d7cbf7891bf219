package io.sentinel.rule;

import io.sentinel.derived.DerivedSet;
import io.sentinel.point.Registry;
import java.util.List;
import java.util.Optional;

/**
 * A whole, validated set of rules over one registry (derived points included in it): what the
 * engine runs.
 */
public record RuleSet(Registry registry, List<Rule> rules, DerivedSet derived) {
  public RuleSet {
    rules = rules instanceof RuleList same ? same : new RuleList(rules);
  }

  public RuleSet(Registry registry, List<Rule> rules) {
    this(registry, rules, DerivedSet.EMPTY);
  }

  public Optional<Rule> rule(String id) {
    return ((RuleList) rules).find(id);
  }
}
