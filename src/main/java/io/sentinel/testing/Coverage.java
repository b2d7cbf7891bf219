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
    return conventional(rule, java.util.Set.of());
  }

  /**
   * The conventional cases of a rule; inputs in {@code timeOnly} (derived points that read only the
   * clock, such as time_of_day) cannot go stale or unavailable and have no such case.
   */
  public static List<String> conventional(Rule rule, java.util.Set<String> timeOnly) {
    List<String> cases = new ArrayList<>(List.of(CONDITION_TRUE, CONDITION_FALSE));
    List<String> inputs =
        rule.inputs().entrySet().stream()
            .filter(e -> !timeOnly.contains(e.getValue()))
            .map(Map.Entry::getKey)
            .toList();
    inputs.forEach(i -> cases.add(stale(i)));
    inputs.forEach(i -> cases.add(unavailable(i)));
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
  /**
   * Each rule with the conventional cases no fixture covered, in rule-set order. The instances of a
   * DSL rule written once for many zones ({@code id@zone}) count together: a case covered on one
   * court is covered for the rule as written, input by input position.
   */
  public Map<String, List<String>> missing(RuleSet ruleSet) {
    Set<String> timeOnly = new HashSet<>();
    ruleSet.derived().ordered().stream()
        .filter(d -> d.inputs().isEmpty())
        .forEach(d -> timeOnly.add(d.id()));
    Map<String, Set<String>> seenByFamily = new LinkedHashMap<>();
    Map<String, Rule> firstOfFamily = new LinkedHashMap<>();
    for (Rule rule : ruleSet.rules()) {
      String family = family(rule.id());
      firstOfFamily.putIfAbsent(family, rule);
      Set<String> seen = seenByFamily.computeIfAbsent(family, k -> new HashSet<>());
      covered.getOrDefault(rule.id(), Set.of()).forEach(c -> seen.add(positional(rule, c)));
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    firstOfFamily.forEach(
        (family, rule) -> {
          Set<String> seen = seenByFamily.get(family);
          List<String> missing =
              conventional(rule, timeOnly).stream()
                  .filter(c -> !seen.contains(positional(rule, c)))
                  .toList();
          if (!missing.isEmpty()) {
            out.put(family, missing);
          }
        });
    return out;
  }

  private static String family(String ruleId) {
    int at = ruleId.indexOf('@');
    return at < 0 ? ruleId : ruleId.substring(0, at);
  }

  /** "input flow stale" as "input #0 stale", so instances with other point names compare. */
  private static String positional(Rule rule, String situation) {
    List<String> names = List.copyOf(rule.inputs().keySet());
    for (int i = 0; i < names.size(); i++) {
      if (situation.startsWith("input " + names.get(i) + " ")) {
        return "input #" + i + situation.substring(("input " + names.get(i)).length());
      }
    }
    return situation;
  }
}
