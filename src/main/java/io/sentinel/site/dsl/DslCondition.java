package io.sentinel.site.dsl;

import com.google.re2j.Pattern;
import io.sentinel.expr.Condition;
import io.sentinel.expr.Inputs;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The conditions of the rule DSL (seed 001) that are not comparisons of the expression language.
 */
sealed interface DslCondition extends Condition {

  /** {@code when: all|any}: every part, or any part; matched counts the parts that hold. */
  record Combined(boolean all, List<Condition> parts, String source) implements DslCondition {
    public Combined {
      parts = List.copyOf(parts);
    }

    @Override
    public boolean test(Inputs inputs) {
      for (Condition c : parts) {
        if (c.test(inputs) != all) {
          return !all;
        }
      }
      return all;
    }

    @Override
    public int matched(Inputs inputs) {
      int n = 0;
      for (Condition c : parts) {
        n += c.test(inputs) ? 1 : 0;
      }
      return n;
    }

    @Override
    public Set<String> inputsRead() {
      Set<String> read = new LinkedHashSet<>();
      parts.forEach(p -> read.addAll(p.inputsRead()));
      return read;
    }
  }

  /** {@code changed}: the input's value changed at this very step. */
  record Changed(int slot, String input, String source) implements DslCondition {
    @Override
    public boolean test(Inputs inputs) {
      PointState s = inputs.state(slot);
      return s.quality() == Quality.LIVE && s.since().equals(inputs.now());
    }

    @Override
    public Set<String> inputsRead() {
      return Set.of(input);
    }
  }

  /** {@code matches}: a string input matching an RE2 expression (linear time, bounded length). */
  record Matches(int slot, String input, Pattern pattern, String source) implements DslCondition {
    @Override
    public boolean test(Inputs inputs) {
      return inputs.state(slot).value() instanceof Value.Text t
          && pattern.matcher(t.value()).find();
    }

    @Override
    public Set<String> inputsRead() {
      return Set.of(input);
    }
  }
}
