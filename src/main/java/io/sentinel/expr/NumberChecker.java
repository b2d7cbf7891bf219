package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.DoubleUnaryOperator;

/**
 * The numbers of the checker: arithmetic, and units, which {@link MeasureUnit#isCompatible} decides
 * and this converts (constants at compile time, the rest at run time).
 */
final class NumberChecker {
  private final Checker c;

  NumberChecker(Checker c) {
    this.c = c;
  }

  record NumPair(NumExpr left, NumExpr right, MeasureUnit unit, boolean bare) {}

  /**
   * Brings two numbers to one unit: a bare number takes the other's unit; otherwise a constant is
   * converted into the other side's unit at compile time, or else the right side into the left's
   * unit at run time. Returns null (reported) for incompatible units.
   */
  NumPair unify(Typed.N l, Ast lNode, Typed.N r, Ast rNode, String verb, int at) {
    if (l.bare() || r.bare() || l.unit().equals(r.unit())) {
      return new NumPair(l.e(), r.e(), l.bare() ? r.unit() : l.unit(), l.bare() && r.bare());
    }
    if (!l.unit().isCompatible(r.unit())) {
      incompatible(l, lNode, r, rNode, verb, at);
      return null;
    }
    if (l.e() instanceof NumExpr.Const && !(r.e() instanceof NumExpr.Const)) {
      return new NumPair(convert(l.e(), l.unit(), r.unit()), r.e(), r.unit(), false);
    }
    return new NumPair(l.e(), convert(r.e(), r.unit(), l.unit()), l.unit(), false);
  }

  /** A list element in the unit of the left side of in; null (reported) if it cannot be. */
  NumExpr toUnitOf(Typed.N l, Ast lNode, Typed.N item, Ast itemNode, int at) {
    if (l.bare() || item.bare() || l.unit().equals(item.unit())) {
      return item.e();
    }
    if (!l.unit().isCompatible(item.unit())) {
      incompatible(l, lNode, item, itemNode, "compare element", itemNode.start());
      return null;
    }
    return convert(item.e(), item.unit(), l.unit());
  }

  void incompatible(Typed.N l, Ast lNode, Typed.N r, Ast rNode, String verb, int at) {
    String left = c.text(lNode) + " (" + l.unit().describe() + ")";
    String right = c.text(rNode) + " (" + r.unit().describe() + ")";
    String what =
        switch (verb) {
          case "add" -> "add " + right + " to " + left;
          case "subtract" -> "subtract " + right + " from " + left;
          case "compare element" -> "compare " + left + " with list element " + right;
          default -> "compare " + left + " with " + right;
        };
    String why;
    if (l.unit().isNone() || r.unit().isNone()) {
      Typed.N none = l.unit().isNone() ? l : r;
      Typed.N unit = l.unit().isNone() ? r : l;
      why =
          (none == l ? c.text(lNode) : c.text(rNode))
              + " has no unit, so it cannot meet a number in "
              + unit.unit().symbol()
              + "; write the number without a unit";
    } else {
      why = "the units " + l.unit().symbol() + " and " + r.unit().symbol() + " are incompatible";
      MeasureUnit minute = MeasureUnit.parse("min").orElseThrow();
      if (l.unit().symbol().equals("m") && r.unit().isCompatible(minute)
          || r.unit().symbol().equals("m") && l.unit().isCompatible(minute)) {
        why += " (m is metre: write min for minutes)";
      }
    }
    c.problems.add(ProblemCode.INCOMPATIBLE_UNITS, at, "cannot " + what + ": " + why);
  }

  /** {@code e}, in unit {@code from}, converted into {@code to}; constants are converted now. */
  static NumExpr convert(NumExpr e, MeasureUnit from, MeasureUnit to) {
    DoubleUnaryOperator f = from.converterTo(to);
    if (e instanceof NumExpr.Const c) {
      return new NumExpr.Const(roundConverted(f.applyAsDouble(c.value())));
    }
    double offset = f.applyAsDouble(0);
    double scale;
    if (offset == 0) {
      scale = f.applyAsDouble(1);
    } else {
      double span = 1 << 20; // large, so that the offset's rounding does not blur the scale
      scale = (f.applyAsDouble(span) - offset) / span;
      if (Math.abs(scale - Math.rint(scale)) < 1e-12) {
        scale = Math.rint(scale);
      }
    }
    double probe = 123.456;
    double expected = f.applyAsDouble(probe);
    if (Math.abs(probe * scale + offset - expected) <= 1e-9 * Math.max(1, Math.abs(expected))) {
      return new NumExpr.Affine(e, scale, offset);
    }
    return new NumExpr.Converted(e, f);
  }

  /**
   * A converted constant, rounded to 12 significant digits: removes the floating-point noise of the
   * conversion (212 degF is 100 degC, not 100.00000000000003), far below any sensor's resolution.
   */
  static double roundConverted(double v) {
    if (!Double.isFinite(v) || v == 0) {
      return v;
    }
    return new BigDecimal(v).round(new MathContext(12, RoundingMode.HALF_EVEN)).doubleValue();
  }

  Typed arith(Ast.Arith n) {
    Typed l = c.check(n.left());
    Typed r = c.check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return Typed.ERR;
    }
    String rule = "'" + n.op() + "' works on numbers only";
    if (!(l instanceof Typed.N)) {
      c.comparisons.notANumber(n.left(), l, n.opStart(), ProblemCode.NOT_A_NUMBER, rule);
      return Typed.ERR;
    }
    if (!(r instanceof Typed.N)) {
      c.comparisons.notANumber(n.right(), r, n.opStart(), ProblemCode.NOT_A_NUMBER, rule);
      return Typed.ERR;
    }
    Typed.N ln = (Typed.N) l;
    Typed.N rn = (Typed.N) r;
    boolean constant = Checker.isConst(l) && Checker.isConst(r);
    if (n.op() == '+' || n.op() == '-') {
      NumPair pair =
          unify(ln, n.left(), rn, n.right(), n.op() == '+' ? "add" : "subtract", n.opStart());
      if (pair == null) {
        return Typed.ERR;
      }
      NumExpr e =
          n.op() == '+'
              ? new NumExpr.Add(pair.left(), pair.right())
              : new NumExpr.Sub(pair.left(), pair.right());
      return new Typed.N(Checker.fold(e, constant), pair.unit(), pair.bare());
    }
    boolean multiply = n.op() == '*';
    if (!ln.unit().isNone() && !rn.unit().isNone()) {
      c.problems.add(
          ProblemCode.UNIT_TIMES_UNIT,
          n.opStart(),
          "cannot "
              + (multiply ? "multiply " : "divide ")
              + c.text(n.left())
              + " ("
              + ln.unit().symbol()
              + ") by "
              + c.text(n.right())
              + " ("
              + rn.unit().symbol()
              + "): one side of "
              + n.op()
              + " must be a number without unit");
      return Typed.ERR;
    }
    if (!multiply && rn.e() instanceof NumExpr.Const zero && zero.value() == 0) {
      c.problems.add(
          ProblemCode.DIVISION_BY_ZERO,
          n.right().start(),
          "division by zero: " + c.text(n) + " divides by " + c.text(n.right()) + ", which is 0");
      return Typed.ERR;
    }
    MeasureUnit unit = ln.unit().isNone() ? rn.unit() : ln.unit();
    NumExpr e = multiply ? new NumExpr.Mul(ln.e(), rn.e()) : new NumExpr.Div(ln.e(), rn.e());
    return new Typed.N(Checker.fold(e, constant), unit, ln.bare() && rn.bare());
  }

  Typed neg(Ast.Neg n) {
    Typed t = c.check(n.operand());
    if (t instanceof Typed.Err) {
      return Typed.ERR;
    }
    if (!(t instanceof Typed.N num)) {
      c.comparisons.notANumber(
          n.operand(), t, n.start(), ProblemCode.NOT_A_NUMBER, "'-' works on numbers only");
      return Typed.ERR;
    }
    return new Typed.N(
        Checker.fold(new NumExpr.Neg(num.e()), Checker.isConst(t)), num.unit(), num.bare());
  }
}
