package io.sentinel.expr;

import io.sentinel.point.PointSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * Compiles the {@code when:} expression of a rule into a {@link Condition}. The language and its
 * error codes are described in {@code docs/expressions.md}.
 *
 * <p>Compilation is pure: the same source and inputs always give the same result, and every problem
 * of the source is reported, not only the first one.
 */
public final class ExpressionCompiler {
  private ExpressionCompiler() {}

  /**
   * Compiles {@code source} against the declared inputs of a rule.
   *
   * @param source the expression text; may span several lines (a YAML block scalar)
   * @param inputs declared input name to its point spec, in declaration order; the i-th entry is
   *     read from slot i of the {@link Inputs} given to {@link Condition#test}
   * @return the condition, or the problems that prevent compiling it
   */
  public static Compiled compile(String source, LinkedHashMap<String, PointSpec> inputs) {
    return compile(source, inputs, null);
  }

  /**
   * Compiles a condition about one point, where bare {@code value} and {@code quality} name that
   * point's value and quality (a derived point's {@code when: "value == true"}). The point is read
   * from slot 0.
   */
  public static Compiled compileAbout(String source, PointSpec subject) {
    LinkedHashMap<String, PointSpec> inputs = new LinkedHashMap<>();
    inputs.put(subject.id(), subject);
    return compile(source, inputs, subject.id());
  }

  private static Compiled compile(
      String source, LinkedHashMap<String, PointSpec> inputs, String subject) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(inputs, "inputs");
    Problems problems = new Problems(source);
    List<Token> tokens = new Lexer(source, problems).tokens();
    if (!ExpressionBounds.check(tokens, problems)) {
      return Compiled.failed(problems.sorted());
    }
    Parser parser = new Parser(tokens, problems, subject);
    Ast tree = parser.parse();
    Checker checker = new Checker(source, inputs, problems);
    BoolExpr root = parser.complete() ? checker.checkRoot(tree) : null;
    if (!problems.isEmpty() || root == null) {
      return Compiled.failed(problems.sorted());
    }
    return Compiled.ok(new CompiledCondition(root, checker.inputsRead(), source));
  }
}
