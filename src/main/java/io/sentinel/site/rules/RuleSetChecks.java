package io.sentinel.site.rules;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.Rule;
import io.sentinel.site.yaml.Problems;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The checks that need the whole rule set: identity and claims that contradict each other. */
public final class RuleSetChecks {
  private RuleSetChecks() {}

  public static void check(List<Rule> rules, Problems problems) {
    Map<String, Rule> byId = new HashMap<>();
    for (Rule r : rules) {
      Rule first = byId.putIfAbsent(r.id(), r);
      if (first != null) {
        problems.error(
            RuleCodes.RULE_006,
            r.where().file(),
            r.where().line(),
            r.id(),
            "duplicate rule id; first defined at " + first.where());
      }
    }
    for (int i = 0; i < rules.size(); i++) {
      for (int j = i + 1; j < rules.size(); j++) {
        conflicts(rules.get(i), rules.get(j), problems);
      }
    }
  }

  private static void conflicts(Rule a, Rule b, Problems problems) {
    // Within a band, a different priority is a deliberate order, not a contest.
    if (a.band() != b.band() || a.priority() != b.priority() || a.id().equals(b.id())) {
      return;
    }
    for (ClaimSpec ca : a.claims()) {
      for (ClaimSpec cb : b.claims()) {
        if (!ca.pointId().equals(cb.pointId()) || ca.value().equals(cb.value())) {
          continue;
        }
        String message =
            "claims "
                + cb.pointId()
                + " = "
                + show(cb.value())
                + " while rule "
                + a.id()
                + " ("
                + ca.where()
                + ") claims it = "
                + show(ca.value())
                + " in the same band "
                + b.band().wireName();
        if (a.band() == Band.INTERLOCK) {
          problems.error(
              RuleCodes.RULE_081,
              cb.where().file(),
              cb.where().line(),
              b.id(),
              message + ": interlocks must agree");
        } else {
          problems.warning(
              RuleCodes.RULE_080,
              cb.where().file(),
              cb.where().line(),
              b.id(),
              message + ": arbitration will pick one by priority, freshness, then rule id");
        }
      }
    }
  }

  private static String show(Value v) {
    return v.toString();
  }
}
