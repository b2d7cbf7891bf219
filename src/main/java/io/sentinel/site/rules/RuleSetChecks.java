package io.sentinel.site.rules;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Interlock;
import io.sentinel.rule.Rule;
import io.sentinel.site.yaml.Problems;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    // Only rules that claim a point in common can contradict each other: pairs are found by
    // point, not by comparing every rule with every other (a 10,000-rule site loaded in minutes),
    // and visited in the order the nested loop over the list would visit them.
    Map<String, List<Integer>> byPoint = new HashMap<>();
    for (int i = 0; i < rules.size(); i++) {
      for (ClaimSpec c : rules.get(i).claims()) {
        List<Integer> claimants = byPoint.computeIfAbsent(c.pointId(), k -> new ArrayList<>());
        if (claimants.isEmpty() || claimants.get(claimants.size() - 1) != i) {
          claimants.add(i);
        }
      }
    }
    java.util.TreeSet<Long> pairs = new java.util.TreeSet<>();
    for (List<Integer> claimants : byPoint.values()) {
      for (int x = 0; x < claimants.size(); x++) {
        for (int y = x + 1; y < claimants.size(); y++) {
          pairs.add((long) claimants.get(x) * rules.size() + claimants.get(y));
        }
      }
    }
    for (long pair : pairs) {
      conflicts(
          rules.get((int) (pair / rules.size())), rules.get((int) (pair % rules.size())), problems);
    }
  }

  private static void conflicts(Rule a, Rule b, Problems problems) {
    // Within a band, a different priority is a deliberate order, not a contest.
    if (a.band() != b.band() || a.priority() != b.priority() || a.id().equals(b.id())) {
      return;
    }
    Set<String> reported = new HashSet<>(); // one problem per point and pair of rules
    for (Position pa : positions(a)) {
      for (Position pb : positions(b)) {
        if (!pa.claim().pointId().equals(pb.claim().pointId())
            || pa.value().equals(pb.value())
            || !reported.add(pb.claim().pointId())) {
          continue;
        }
        String message =
            pb.kind()
                + " "
                + pb.claim().pointId()
                + " = "
                + show(pb.value())
                + " while rule "
                + a.id()
                + " ("
                + pa.claim().where()
                + ") "
                + pa.kind()
                + " it = "
                + show(pa.value())
                + " in the same band "
                + b.band().wireName();
        if (a.band() == Band.INTERLOCK) {
          problems.error(
              RuleCodes.RULE_081,
              pb.claim().where().file(),
              pb.claim().where().line(),
              b.id(),
              message + ": interlocks must agree");
          continue;
        }
        problems.warning(
            RuleCodes.RULE_080,
            pb.claim().where().file(),
            pb.claim().where().line(),
            b.id(),
            message + ": arbitration will pick one by priority, freshness, then rule id");
      }
    }
  }

  /**
   * The values a rule may hold on each point it claims. An interlock's protective values are claims
   * too (seed 000: "No two interlock rules claim the same point with different values"): a
   * fail_safe interlock claims its fail_value from core start and on input loss, and an assert on
   * input loss claims its value; two interlocks disagreeing there fight exactly when the plant
   * knows least.
   */
  private static List<Position> positions(Rule r) {
    List<Position> out = new ArrayList<>();
    for (ClaimSpec c : r.claims()) {
      out.add(new Position(c, c.value(), "claims"));
      if (r.band() != Band.INTERLOCK) {
        continue;
      }
      if (r.interlock().orElse(null) instanceof Interlock.FailSafe fs) {
        out.add(new Position(c, fs.value(), "asserts (fail_value)"));
      } else if (r.onInputLoss() instanceof InputLoss.Assert lost) {
        out.add(new Position(c, lost.value(), "asserts (on_input_loss)"));
      }
    }
    return out;
  }

  private record Position(ClaimSpec claim, Value value, String kind) {}

  private static String show(Value v) {
    return v.toString();
  }
}
