package io.sentinel.expr;

/**
 * A token of the expression language.
 *
 * @param text an identifier or keyword as written, a number's digits, or a text literal's content
 *     with escapes resolved
 * @param number the value of a number token
 * @param unit the unit symbol written after a number ("" if none)
 * @param unitStart where the unit symbol starts, or -1
 */
record Token(
    Kind kind, int start, int end, String text, double number, String unit, int unitStart) {
  enum Kind {
    NUMBER,
    STRING,
    IDENT,
    AND,
    OR,
    NOT,
    IN,
    TRUE,
    FALSE,
    DOT,
    COMMA,
    LPAREN,
    RPAREN,
    LBRACK,
    RBRACK,
    PLUS,
    MINUS,
    STAR,
    SLASH,
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE,
    /** Something the lexer already reported; the parser stays silent about it. */
    ERROR,
    EOF
  }

  static Token simple(Kind kind, int start, int end, String text) {
    return new Token(kind, start, end, text, 0, "", -1);
  }

  /** How a message names the token. */
  String describe() {
    return switch (kind) {
      case EOF -> "the end of the expression";
      case STRING -> "the text \"" + text + "\"";
      case NUMBER -> "the number " + text + (unit.isEmpty() ? "" : " " + unit);
      default -> "'" + text + "'";
    };
  }
}
