package io.sentinel.rule;

import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;

/**
 * A rule set's rules, unmodifiable, in order, and found by id without a scan: the audit trail looks
 * a rule up for every decision and claim change, on sites of thousands of rules.
 */
final class RuleList extends AbstractList<Rule> implements RandomAccess {
  private final List<Rule> rules;
  private final Map<String, Rule> byId = new HashMap<>();

  RuleList(List<Rule> rules) {
    this.rules = List.copyOf(rules);
    // The first of a repeated id, as a scan in order would find it.
    this.rules.forEach(r -> byId.putIfAbsent(r.id(), r));
  }

  Optional<Rule> find(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  @Override
  public Rule get(int index) {
    return rules.get(index);
  }

  @Override
  public int size() {
    return rules.size();
  }
}
