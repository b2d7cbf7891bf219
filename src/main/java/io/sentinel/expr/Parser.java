package io.sentinel.expr;

import io.sentinel.expr.Token.Kind;
import io.sentinel.point.MeasureUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Recursive-descent parser for the grammar in docs/expressions.md. On a syntax error inside an
 * operand of and/or it reports the error, skips to the next and/or and goes on, so that problems in
 * later operands are reported too.
 */
final class Parser {
  /** Thrown to abandon an operand; {@code reported} is always true once it is thrown. */
  private static final class SyntaxError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SyntaxError() {
      super(null, null, false, false);
    }
  }

  private final List<Token> tokens;
  private final Problems problems;

  /** The one input that bare {@code value} and {@code quality} refer to, or null. */
  private final String subject;

  private int p;
  private int parenDepth;
  private boolean complete = true;

  Parser(List<Token> tokens, Problems problems) {
    this(tokens, problems, null);
  }

  Parser(List<Token> tokens, Problems problems, String subject) {
    this.tokens = tokens;
    this.problems = problems;
    this.subject = subject;
  }

  /** Whether the parser reached the end of the source (else the tree is only a prefix). */
  boolean complete() {
    return complete;
  }

  Ast parse() {
    Ast tree = parseOr();
    if (peek().kind() != Kind.EOF) {
      complete = false;
      Token t = peek();
      if (t.kind() != Kind.ERROR) {
        String hint =
            startsValue(t.kind()) ? " (is an operator such as and, or, == missing before it?)" : "";
        error(t, "expected and, or or the end of the expression, found " + t.describe() + hint);
      }
    }
    return tree;
  }

  private Ast parseOr() {
    Ast left = parseAnd();
    while (peek().kind() == Kind.OR) {
      Token op = advance();
      left = new Ast.Logic(false, left, parseAnd(), op.start());
    }
    return left;
  }

  private Ast parseAnd() {
    Ast left = operand();
    while (peek().kind() == Kind.AND) {
      Token op = advance();
      left = new Ast.Logic(true, left, operand(), op.start());
    }
    return left;
  }

  /** One operand of and/or; on a syntax error, skips to what can follow it. */
  private Ast operand() {
    int start = peek().start();
    int depth = parenDepth;
    try {
      return parseNot();
    } catch (SyntaxError e) {
      parenDepth = depth;
      synchronize();
      return new Ast.Bad(start, Math.max(start, tokens.get(Math.max(0, p - 1)).end()));
    }
  }

  /** Skips to the next and/or at this nesting level, the ')' closing it, or the end. */
  private void synchronize() {
    int depth = 0;
    while (true) {
      Kind k = peek().kind();
      if (k == Kind.EOF) {
        return;
      }
      if (depth == 0 && (k == Kind.AND || k == Kind.OR)) {
        return;
      }
      if (k == Kind.LPAREN || k == Kind.LBRACK) {
        depth++;
      } else if ((k == Kind.RPAREN || k == Kind.RBRACK) && depth > 0) {
        depth--;
      } else if (k == Kind.RPAREN && parenDepth > 0) {
        return;
      }
      advance();
    }
  }

  private Ast parseNot() {
    if (peek().kind() == Kind.NOT) {
      Token not = advance();
      return new Ast.Not(parseNot(), not.start());
    }
    return parseCmp();
  }

  private Ast parseCmp() {
    Ast left = parseSum();
    Token t = peek();
    CmpOp op = cmpOp(t.kind());
    if (op != null) {
      advance();
      return new Ast.Compare(op, left, parseSum(), t.start());
    }
    if (t.kind() == Kind.IN) {
      advance();
      return parseList(left, false, t);
    }
    if (t.kind() == Kind.NOT && peek(1).kind() == Kind.IN) {
      advance();
      advance();
      return parseList(left, true, t);
    }
    return left;
  }

  private Ast parseList(Ast left, boolean negated, Token op) {
    Token open = peek();
    if (open.kind() != Kind.LBRACK) {
      throw error(
          open,
          "expected a list such as [a, b] after "
              + (negated ? "not in" : "in")
              + ", found "
              + open.describe());
    }
    advance();
    List<Ast> items = new ArrayList<>();
    if (peek().kind() == Kind.RBRACK) {
      throw error(peek(), "a list needs at least one element");
    }
    items.add(parseUnary());
    while (peek().kind() == Kind.COMMA) {
      advance();
      items.add(parseUnary());
    }
    Token close = peek();
    if (close.kind() != Kind.RBRACK) {
      throw error(
          close,
          "expected , or ] in the list opened at "
              + where(open.start())
              + ", found "
              + close.describe());
    }
    advance();
    return new Ast.In(left, items, negated, op.start(), close.end());
  }

  private Ast parseSum() {
    Ast left = parseProd();
    while (peek().kind() == Kind.PLUS || peek().kind() == Kind.MINUS) {
      Token op = advance();
      left = new Ast.Arith(op.text().charAt(0), left, parseProd(), op.start());
    }
    return left;
  }

  private Ast parseProd() {
    Ast left = parseUnary();
    while (peek().kind() == Kind.STAR || peek().kind() == Kind.SLASH) {
      Token op = advance();
      left = new Ast.Arith(op.text().charAt(0), left, parseUnary(), op.start());
    }
    return left;
  }

  private Ast parseUnary() {
    if (peek().kind() == Kind.MINUS) {
      Token minus = advance();
      return new Ast.Neg(parseUnary(), minus.start());
    }
    return parseAtom();
  }

  private Ast parseAtom() {
    Token t = peek();
    switch (t.kind()) {
      case NUMBER:
        advance();
        return number(t);
      case TRUE:
      case FALSE:
        advance();
        return new Ast.Bool(t.kind() == Kind.TRUE, t.start(), t.end());
      case STRING:
        advance();
        return new Ast.Str(t.text(), t.start(), t.end());
      case IDENT:
        advance();
        if (peek().kind() != Kind.DOT) {
          if (subject != null && (t.text().equals("value") || t.text().equals("quality"))) {
            return new Ast.Ref(subject, t.text().equals("quality"), t.start(), t.end());
          }
          return new Ast.Sym(t.text(), t.start(), t.end());
        }
        advance();
        Token member = peek();
        if (member.kind() != Kind.IDENT) {
          throw error(
              member,
              "expected value or quality after '" + t.text() + ".', found " + member.describe());
        }
        advance();
        if (member.text().equals("value") || member.text().equals("quality")) {
          return new Ast.Ref(t.text(), member.text().equals("quality"), t.start(), member.end());
        }
        problems.add(
            ProblemCode.UNKNOWN_MEMBER,
            member.start(),
            "'"
                + t.text()
                + "."
                + member.text()
                + "': an input has only "
                + t.text()
                + ".value and "
                + t.text()
                + ".quality");
        return new Ast.Bad(t.start(), member.end());
      case LPAREN:
        advance();
        parenDepth++;
        Ast inner = parseOr();
        Token close = peek();
        if (close.kind() != Kind.RPAREN) {
          throw error(
              close,
              "expected ) to close the ( at " + where(t.start()) + ", found " + close.describe());
        }
        advance();
        parenDepth--;
        return new Ast.Group(inner, t.start(), close.end());
      default:
        throw error(
            t,
            "expected a value (a number, true, false, \"text\", input.value, input.quality or a"
                + " name), found "
                + t.describe());
    }
  }

  private Ast number(Token t) {
    if (t.unit().isEmpty()) {
      return new Ast.Num(t.number(), null, t.start(), t.end());
    }
    Optional<MeasureUnit> unit = MeasureUnit.parse(t.unit());
    if (unit.isPresent()) {
      return new Ast.Num(t.number(), unit.get(), t.start(), t.end());
    }
    List<String> close = Names.closest(t.unit(), UnitCatalogue.symbols());
    String known =
        close.isEmpty()
            ? "; known units are " + Names.list(UnitCatalogue.symbols())
            : ": did you mean " + Names.orList(close) + "?";
    problems.add(
        ProblemCode.UNKNOWN_UNIT,
        t.unitStart(),
        "unknown unit '" + t.unit() + "' after " + t.text() + known);
    return new Ast.Bad(t.start(), t.end());
  }

  private static CmpOp cmpOp(Kind kind) {
    return switch (kind) {
      case EQ -> CmpOp.EQ;
      case NE -> CmpOp.NE;
      case LT -> CmpOp.LT;
      case LE -> CmpOp.LE;
      case GT -> CmpOp.GT;
      case GE -> CmpOp.GE;
      default -> null;
    };
  }

  private static boolean startsValue(Kind kind) {
    return switch (kind) {
      case NUMBER, STRING, IDENT, TRUE, FALSE, LPAREN, NOT -> true;
      default -> false;
    };
  }

  private Token peek() {
    return peek(0);
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(p + ahead, tokens.size() - 1));
  }

  private Token advance() {
    Token t = peek();
    if (p < tokens.size() - 1) {
      p++;
    }
    return t;
  }

  /**
   * Reports a syntax error at {@code t} (unless the lexer already did) and returns the throwable.
   */
  private SyntaxError error(Token t, String message) {
    if (t.kind() != Kind.ERROR) {
      problems.add(ProblemCode.SYNTAX, t.start(), message);
    }
    return new SyntaxError();
  }

  /** "line 2, column 5" of an offset, for messages that point elsewhere. */
  private String where(int offset) {
    int[] at = problems.position(offset);
    return "line " + at[0] + ", column " + at[1];
  }
}
