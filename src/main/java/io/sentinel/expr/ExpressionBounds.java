package io.sentinel.expr;

import io.sentinel.expr.Token.Kind;
import java.util.List;

/**
 * What an expression may hold before it is parsed (issue 13, bounded nesting at every door): the
 * parser is recursive descent and the checker and the evaluation recurse over the tree, so a {@code
 * when} of 20,000 {@code (} or {@code not}, or of 40,000 {@code and}s (a tree as deep as it is
 * long), would exhaust the thread that checks it: {@code rules:validate}'s, the revision thread,
 * the start. Real conditions nest a few levels and hold a few dozen tokens; the limits are far
 * above.
 */
final class ExpressionBounds {
  private ExpressionBounds() {}

  /** Brackets and prefix operators ({@code not}, unary minus) nested at most this deep. */
  static final int MAX_DEPTH = 64;

  /** Tokens in one expression at most. */
  static final int MAX_TOKENS = 500;

  /** Reports the bound the tokens exceed, nesting first (as a syntax problem); true when within. */
  static boolean check(List<Token> tokens, Problems problems) {
    int brackets = 0;
    int prefixes = 0;
    for (Token t : tokens) {
      Kind k = t.kind();
      if (k == Kind.LPAREN || k == Kind.LBRACK) {
        brackets++;
      } else if (k == Kind.RPAREN || k == Kind.RBRACK) {
        brackets = Math.max(0, brackets - 1);
      }
      prefixes = k == Kind.NOT || k == Kind.MINUS ? prefixes + 1 : 0;
      if (brackets + prefixes > MAX_DEPTH) {
        problems.add(
            ProblemCode.SYNTAX,
            t.start(),
            "nested deeper than "
                + MAX_DEPTH
                + " levels (brackets, not, unary minus): write it flatter");
        return false;
      }
    }
    if (tokens.size() > MAX_TOKENS) {
      problems.add(
          ProblemCode.SYNTAX,
          tokens.get(MAX_TOKENS).start(),
          "the expression has "
              + tokens.size()
              + " tokens; at most "
              + MAX_TOKENS
              + ": split it into rules or derived points");
      return false;
    }
    return true;
  }
}
