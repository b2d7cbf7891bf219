package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The evaluation limit (seed 000, loop protection) counts exactly: an evaluation is refused when
 * the limit's number of accepted evaluations already lie less than the window before it, however
 * small the rule's ring of recent evaluations started and however often it wrapped or grew. Checked
 * against the plain definition (every accepted instant kept in a list) on random runs of instants,
 * from sparse to bursts denser than the limit, with resets (an operator's resume) among them.
 */
class EvaluationLimitProperties {
  @Property(tries = 300)
  void theRingRefusesExactlyWhatTheDefinitionRefuses(
      @ForAll @IntRange(min = 1, max = 80) int limit,
      @ForAll @IntRange(min = 1, max = 2000) int windowMillis,
      @ForAll("gaps") List<Long> gapsMillis) {
    RuleRuntime r = SemanticsSite.runtime(SemanticsSite.ruleSet().rules().get(0), limit);
    long window = windowMillis * 1_000_000L;
    List<Long> accepted = new ArrayList<>();
    long t = SemanticsSite.START.getEpochSecond() * 1_000_000_000L;
    for (long gap : gapsMillis) {
      if (gap < 0) {
        // A resume: the count starts afresh.
        r.resetEvaluations();
        accepted.clear();
        continue;
      }
      t += gap * 1_000_000L;
      long now = t;
      while (!accepted.isEmpty() && now - accepted.get(0) >= window) {
        accepted.remove(0); // time runs forward: once outside the window, outside for good
      }
      boolean expected = accepted.size() < limit;
      assertThat(r.recordEvaluation(now, window))
          .as("evaluation at +%d ns", now)
          .isEqualTo(expected);
      if (expected) {
        accepted.add(now);
      }
    }
  }

  /** Gaps between evaluations: bursts (0-3 ms), steady, sparse; -1 now and then: a reset. */
  @Provide
  Arbitrary<List<Long>> gaps() {
    Arbitrary<Long> gap =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(12, Arbitraries.longs().between(0, 3)),
            net.jqwik.api.Tuple.of(6, Arbitraries.longs().between(4, 60)),
            net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(61, 3000)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(-1L)));
    return gap.list().ofMinSize(0).ofMaxSize(1500);
  }
}
