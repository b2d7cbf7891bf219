package io.sentinel.site.yaml;

import io.sentinel.site.yaml.Problem.Severity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects every problem of a load so that they are reported together, not one per run. */
public final class Problems {
  private final List<Problem> list = new ArrayList<>();

  public void error(Code code, String file, int line, String rule, String message) {
    list.add(new Problem(Severity.ERROR, code.id(), file, line, rule, message));
  }

  public void warning(Code code, String file, int line, String rule, String message) {
    list.add(new Problem(Severity.WARNING, code.id(), file, line, rule, message));
  }

  /** An error of the expression language, whose ids its own catalogue declares (EXPR-). */
  public void expressionError(String exprCode, String file, int line, String rule, String message) {
    list.add(new Problem(Severity.ERROR, exprCode, file, line, rule, message));
  }

  public void add(Problem p) {
    list.add(p);
  }

  public boolean hasErrors() {
    return list.stream().anyMatch(Problem::isError);
  }

  /** In file and line order, errors before warnings on the same line. */
  public List<Problem> sorted() {
    return list.stream()
        .sorted(
            Comparator.comparing(Problem::file)
                .thenComparingInt(Problem::line)
                .thenComparing(Problem::severity))
        .toList();
  }
}
