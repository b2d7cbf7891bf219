package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import java.util.List;

/** The untyped syntax tree the parser produces; offsets are into the expression's source. */
sealed interface Ast {
  /** Offset of the node's first character. */
  int start();

  /** Offset just after the node's last character. */
  int end();

  /** {@code a and b}, {@code a or b}. */
  record Logic(boolean isAnd, Ast left, Ast right, int opStart) implements Ast {
    public int start() {
      return left.start();
    }

    public int end() {
      return right.end();
    }

    String op() {
      return isAnd ? "and" : "or";
    }
  }

  record Not(Ast operand, int start) implements Ast {
    public int end() {
      return operand.end();
    }
  }

  record Compare(CmpOp op, Ast left, Ast right, int opStart) implements Ast {
    public int start() {
      return left.start();
    }

    public int end() {
      return right.end();
    }
  }

  record In(Ast left, List<Ast> items, boolean negated, int opStart, int end) implements Ast {
    public In {
      items = List.copyOf(items);
    }

    public int start() {
      return left.start();
    }

    String op() {
      return negated ? "not in" : "in";
    }
  }

  /** op is one of + - * /. */
  record Arith(char op, Ast left, Ast right, int opStart) implements Ast {
    public int start() {
      return left.start();
    }

    public int end() {
      return right.end();
    }
  }

  record Neg(Ast operand, int start) implements Ast {
    public int end() {
      return operand.end();
    }
  }

  /** A number literal; unit {@code null} when none was written (it then takes the other side's). */
  record Num(double value, MeasureUnit unit, int start, int end) implements Ast {}

  record Bool(boolean value, int start, int end) implements Ast {}

  record Str(String value, int start, int end) implements Ast {}

  /** {@code name.value} or {@code name.quality}. */
  record Ref(String name, boolean quality, int start, int end) implements Ast {}

  /** A bare word: an enum value, a quality name, or a mistake. */
  record Sym(String name, int start, int end) implements Ast {}

  record Group(Ast inner, int start, int end) implements Ast {}

  /** Where a problem was already reported; the checker stays silent about it. */
  record Bad(int start, int end) implements Ast {}
}
