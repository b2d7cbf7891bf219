package io.sentinel.testing;

import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The conventional cases of seed 000 (condition true, condition false, each input stale, each input
 * unavailable, warmup) and which of them the fixtures covered, judged by what the checks observed
 * rather than by case names.
 */
public final class Coverage {
  public static final String CONDITION_TRUE = "condition true";
  public static final String CONDITION_FALSE = "condition false";
  public static final String WARMUP = "warmup";

  private final Map<String, Set<String>> covered = new HashMap<>();

  public static String stale(String input) {
    return "input " + input + " stale";
  }

  public static String unavailable(String input) {
    return "input " + input + " unavailable";
  }

  public static List<String> conventional(Rule rule) {
    List<String> cases = new ArrayList<>(List.of(CONDITION_TRUE, CONDITION_FALSE));
    rule.inputs().keySet().forEach(i -> cases.add(stale(i)));
    rule.inputs().keySet().forEach(i -> cases.add(unavailable(i)));
    cases.add(WARMUP);
    return cases;
  }

  public void record(FixtureRunner.CaseResult result) {
    result
        .fixture()
        .rule()
        .ifPresent(r -> covered.computeIfAbsent(r, k -> new HashSet<>()).addAll(result.covered()));
  }

  /** Each rule with the conventional cases no fixture covered, in rule-set order. */
  public Map<String, List<String>> missing(RuleSet ruleSet) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Rule rule : ruleSet.rules()) {
      Set<String> seen = covered.getOrDefault(rule.id(), Set.of());
      List<String> missing = conventional(rule).stream().filter(c -> !seen.contains(c)).toList();
      if (!missing.isEmpty()) {
        out.put(rule.id(), missing);
      }
    }
    return out;
  }
}
