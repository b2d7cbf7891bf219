package io.sentinel.expr;

import io.sentinel.expr.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Splits an expression into tokens. Reports bad characters and bad text literals, and goes on so
 * that later problems are reported too.
 */
final class Lexer {
  private static final Map<String, Kind> KEYWORDS =
      Map.of(
          "and", Kind.AND,
          "or", Kind.OR,
          "not", Kind.NOT,
          "in", Kind.IN,
          "true", Kind.TRUE,
          "false", Kind.FALSE);

  private final String src;
  private final Problems problems;
  private final List<Token> tokens = new ArrayList<>();
  private int pos;

  Lexer(String source, Problems problems) {
    this.src = source;
    this.problems = problems;
  }

  /** The tokens of the whole source, ending with an EOF token. */
  List<Token> tokens() {
    while (true) {
      skipWhitespace();
      if (pos >= src.length()) {
        tokens.add(Token.simple(Kind.EOF, pos, pos, ""));
        return tokens;
      }
      tokens.add(next());
    }
  }

  private void skipWhitespace() {
    while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
      pos++;
    }
  }

  private Token next() {
    int start = pos;
    char c = src.charAt(pos);
    if (isDigit(c)) {
      return number();
    }
    if (c == '"') {
      return text();
    }
    if (isIdentStart(c)) {
      boolean member = !tokens.isEmpty() && tokens.get(tokens.size() - 1).kind() == Kind.DOT;
      String word = member ? memberWord() : identifier();
      Kind keyword = member ? null : KEYWORDS.get(word);
      return Token.simple(keyword == null ? Kind.IDENT : keyword, start, pos, word);
    }
    pos++;
    char n = pos < src.length() ? src.charAt(pos) : '\0';
    switch (c) {
      case '.':
        return Token.simple(Kind.DOT, start, pos, ".");
      case ',':
        return Token.simple(Kind.COMMA, start, pos, ",");
      case '(':
        return Token.simple(Kind.LPAREN, start, pos, "(");
      case ')':
        return Token.simple(Kind.RPAREN, start, pos, ")");
      case '[':
        return Token.simple(Kind.LBRACK, start, pos, "[");
      case ']':
        return Token.simple(Kind.RBRACK, start, pos, "]");
      case '+':
        return Token.simple(Kind.PLUS, start, pos, "+");
      case '-':
        return Token.simple(Kind.MINUS, start, pos, "-");
      case '*':
        return Token.simple(Kind.STAR, start, pos, "*");
      case '/':
        return Token.simple(Kind.SLASH, start, pos, "/");
      case '<':
        return n == '=' ? two(Kind.LE, start, "<=") : Token.simple(Kind.LT, start, pos, "<");
      case '>':
        return n == '=' ? two(Kind.GE, start, ">=") : Token.simple(Kind.GT, start, pos, ">");
      case '=':
        if (n == '=') {
          return two(Kind.EQ, start, "==");
        }
        return bad(start, "'=' is not an operator: write == to compare");
      case '!':
        if (n == '=') {
          return two(Kind.NE, start, "!=");
        }
        return bad(start, "'!' is not an operator: write != to compare or not to negate");
      case '&':
        if (n == '&') {
          pos++;
        }
        return bad(start, "'" + src.substring(start, pos) + "' is not an operator: write and");
      case '|':
        if (n == '|') {
          pos++;
        }
        return bad(start, "'" + src.substring(start, pos) + "' is not an operator: write or");
      case '\'':
        return bad(start, "text is written in double quotes (\"...\"), not single quotes");
      default:
        int cp = src.codePointAt(start);
        pos = start + Character.charCount(cp);
        return bad(start, "unexpected character '" + src.substring(start, pos) + "'");
    }
  }

  private Token two(Kind kind, int start, String text) {
    pos = start + 2;
    return Token.simple(kind, start, pos, text);
  }

  private Token bad(int start, String message) {
    problems.add(ProblemCode.BAD_CHARACTER, start, message);
    return Token.simple(Kind.ERROR, start, pos, src.substring(start, pos));
  }

  private Token number() {
    int start = pos;
    while (pos < src.length() && isDigit(src.charAt(pos))) {
      pos++;
    }
    if (pos + 1 < src.length() && src.charAt(pos) == '.' && isDigit(src.charAt(pos + 1))) {
      pos++;
      while (pos < src.length() && isDigit(src.charAt(pos))) {
        pos++;
      }
    }
    if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
      int e = pos + 1;
      if (e < src.length() && (src.charAt(e) == '+' || src.charAt(e) == '-')) {
        e++;
      }
      if (e < src.length() && isDigit(src.charAt(e))) {
        pos = e;
        while (pos < src.length() && isDigit(src.charAt(pos))) {
          pos++;
        }
      }
    }
    String digits = src.substring(start, pos);
    double value = Double.parseDouble(digits);
    if (Double.isInfinite(value)) {
      problems.add(ProblemCode.BAD_CHARACTER, start, "the number " + digits + " is too large");
      return Token.simple(Kind.ERROR, start, pos, digits);
    }
    // A unit may follow, attached or after whitespace; a keyword is not a unit.
    int afterNumber = pos;
    skipWhitespace();
    int unitStart = pos;
    String unit = "";
    if (pos < src.length() && src.charAt(pos) == '%') {
      pos++;
      unit = "%";
    } else if (pos < src.length() && isIdentStart(src.charAt(pos))) {
      String word = memberWord();
      // a keyword, or a name followed by a dot (an input: an operator is missing), is no unit
      if (KEYWORDS.containsKey(word) || pos < src.length() && src.charAt(pos) == '.') {
        pos = afterNumber;
        return new Token(Kind.NUMBER, start, pos, digits, value, "", -1);
      }
      if (pos + 1 < src.length()
          && src.charAt(pos) == '/'
          && Character.isLetter(src.charAt(pos + 1))) {
        pos++;
        word = word + "/" + memberWord();
      }
      unit = word;
    } else {
      pos = afterNumber;
      return new Token(Kind.NUMBER, start, pos, digits, value, "", -1);
    }
    return new Token(Kind.NUMBER, start, pos, digits, value, unit, unitStart);
  }

  private Token text() {
    int start = pos;
    pos++; // the opening quote
    StringBuilder sb = new StringBuilder();
    boolean ok = true;
    while (pos < src.length() && src.charAt(pos) != '"') {
      char c = src.charAt(pos);
      if (c == '\\') {
        char e = pos + 1 < src.length() ? src.charAt(pos + 1) : '\0';
        if (e == '"' || e == '\\') {
          sb.append(e);
          pos += 2;
          continue;
        }
        String escape = e == '\0' ? "\\" : "\\" + e;
        problems.add(
            ProblemCode.BAD_TEXT,
            pos,
            "unknown escape '"
                + escape
                + "' in text: only \\\" (a double quote) and \\\\ (a backslash) are allowed");
        ok = false;
        pos += e == '\0' ? 1 : 2;
        continue;
      }
      sb.append(c);
      pos++;
    }
    if (pos >= src.length()) {
      problems.add(ProblemCode.BAD_TEXT, start, "this text has no closing double quote (\")");
      return Token.simple(Kind.ERROR, start, pos, src.substring(start));
    }
    pos++; // the closing quote
    return Token.simple(ok ? Kind.STRING : Kind.ERROR, start, pos, sb.toString());
  }

  /**
   * Letters, digits, '_' and '-' when followed by one of those: {@code flow-temp}, {@code ahu_2}.
   */
  private String identifier() {
    int start = pos;
    pos++;
    while (pos < src.length()) {
      char c = src.charAt(pos);
      if (isIdentPart(c)) {
        pos++;
      } else if (c == '-' && pos + 1 < src.length() && isIdentPart(src.charAt(pos + 1))) {
        pos += 2;
      } else {
        break;
      }
    }
    return src.substring(start, pos);
  }

  /**
   * A word without '-': after a dot, so that {@code flow.value-3} is a subtraction, and as a unit
   * symbol, so that {@code 35degC-3} is one too.
   */
  private String memberWord() {
    int start = pos;
    pos++;
    while (pos < src.length() && isIdentPart(src.charAt(pos))) {
      pos++;
    }
    return src.substring(start, pos);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static boolean isIdentStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  static boolean isIdentPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}
