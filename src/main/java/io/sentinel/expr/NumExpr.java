package io.sentinel.expr;

import java.util.function.DoubleUnaryOperator;

/** A typed number expression; NaN stands for an absent value. Evaluation allocates nothing. */
sealed interface NumExpr {
  double eval(Inputs in);

  record Const(double value) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return value;
    }
  }

  /** {@code flow.value} of a number input, in the point's unit. */
  record Input(int slot, String name) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return in.number(slot);
    }
  }

  /** A unit conversion computed at compile time: {@code x * scale + offset}. */
  record Affine(NumExpr operand, double scale, double offset) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return operand.eval(in) * scale + offset;
    }
  }

  /** A unit conversion that is not affine; no unit of the catalogue needs it. */
  record Converted(NumExpr operand, DoubleUnaryOperator converter) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      double v = operand.eval(in);
      return Double.isNaN(v) ? v : converter.applyAsDouble(v);
    }
  }

  record Neg(NumExpr operand) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return -operand.eval(in);
    }
  }

  record Add(NumExpr left, NumExpr right) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return left.eval(in) + right.eval(in);
    }
  }

  record Sub(NumExpr left, NumExpr right) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return left.eval(in) - right.eval(in);
    }
  }

  record Mul(NumExpr left, NumExpr right) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return left.eval(in) * right.eval(in);
    }
  }

  /** Division; a run-time division by zero gives an infinity (or NaN for 0/0, i.e. absent). */
  record Div(NumExpr left, NumExpr right) implements NumExpr {
    @Override
    public double eval(Inputs in) {
      return left.eval(in) / right.eval(in);
    }
  }
}
