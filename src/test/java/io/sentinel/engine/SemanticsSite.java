package io.sentinel.engine;

import io.sentinel.point.PointTable;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The semantics site's rule set ({@code src/test/resources/sites/semantics}), loaded once, and a
 * rule's runtime over a fresh point table: what the engine's property tests run a single rule on.
 */
final class SemanticsSite {
  static final Instant START = Instant.parse("2026-03-29T00:30:00Z");

  private static RuleSet ruleSet;

  private SemanticsSite() {}

  static synchronized RuleSet ruleSet() {
    if (ruleSet == null) {
      ruleSet =
          Site.load(Path.of("src/test/resources/sites/semantics")).site().orElseThrow().ruleSet();
    }
    return ruleSet;
  }

  static Rule rule(String id) {
    return ruleSet().rules().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
  }

  /** A rule alone, over a fresh point table of the site started at {@link #START}. */
  static RuleRuntime runtime(Rule rule, int evaluationLimit) {
    return new RuleRuntime(rule, 0, new PointTable(ruleSet().registry(), START), evaluationLimit);
  }
}
