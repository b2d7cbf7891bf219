package io.sentinel.expr;

/**
 * A problem in an expression's source.
 *
 * @param code a stable code, {@code EXPR-001} to {@code EXPR-017}, listed in {@code
 *     docs/expressions.md}
 * @param line 1-based line within the expression's source
 * @param column 1-based column within that line
 * @param message what is wrong, in the words of the expression's author
 */
public record ExprProblem(String code, int line, int column, String message) {
  @Override
  public String toString() {
    return line + ":" + column + ": " + code + " " + message;
  }
}
