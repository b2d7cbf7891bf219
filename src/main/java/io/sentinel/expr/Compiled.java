package io.sentinel.expr;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The result of compiling an expression: a condition, or the problems found in the source. */
public record Compiled(Optional<Condition> condition, List<ExprProblem> problems) {
  public Compiled {
    Objects.requireNonNull(condition, "condition");
    problems = List.copyOf(problems);
    if (condition.isPresent() != problems.isEmpty()) {
      throw new IllegalArgumentException("a condition is present exactly when there is no problem");
    }
  }

  static Compiled ok(Condition condition) {
    return new Compiled(Optional.of(condition), List.of());
  }

  static Compiled failed(List<ExprProblem> problems) {
    return new Compiled(Optional.empty(), problems);
  }
}
