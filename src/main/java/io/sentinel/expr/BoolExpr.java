package io.sentinel.expr;

import io.sentinel.point.Quality;

/**
 * A typed, checked boolean expression. Evaluation allocates nothing. A comparison that involves an
 * absent value is false, whatever the operator.
 */
sealed interface BoolExpr {
  /** The result of this expression: absent counts as false. */
  boolean test(Inputs in);

  /**
   * The value for a comparison with another boolean: {@link #TRUE}, {@link #FALSE} or {@link
   * #ABSENT}. Only a bool input can be absent.
   */
  default int tri(Inputs in) {
    return test(in) ? TRUE : FALSE;
  }

  int FALSE = 0;
  int TRUE = 1;
  int ABSENT = -1;

  record Const(boolean value) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      return value;
    }
  }

  /** {@code demand.value} of a bool input. */
  record Input(int slot, String name) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      return in.truth(slot) == 1;
    }

    @Override
    public int tri(Inputs in) {
      int truth = in.truth(slot);
      return truth < 0 ? ABSENT : truth == 1 ? TRUE : FALSE;
    }
  }

  record Not(BoolExpr operand) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      return !operand.test(in);
    }
  }

  record And(BoolExpr left, BoolExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      return left.test(in) && right.test(in);
    }
  }

  record Or(BoolExpr left, BoolExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      return left.test(in) || right.test(in);
    }
  }

  record NumCompare(CmpOp op, NumExpr left, NumExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      double a = left.eval(in);
      if (Double.isNaN(a)) {
        return false;
      }
      double b = right.eval(in);
      return !Double.isNaN(b) && op.test(a, b);
    }
  }

  /** {@code ==} (equal true) or {@code !=} (equal false) between two booleans. */
  record BoolCompare(boolean equal, BoolExpr left, BoolExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      int a = left.tri(in);
      if (a == ABSENT) {
        return false;
      }
      int b = right.tri(in);
      return b != ABSENT && (a == b) == equal;
    }
  }

  record TextCompare(boolean equal, TextExpr left, TextExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      String a = left.eval(in);
      if (a == null) {
        return false;
      }
      String b = right.eval(in);
      return b != null && a.equals(b) == equal;
    }
  }

  record QualityCompare(boolean equal, QualityExpr left, QualityExpr right) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      Quality a = left.eval(in);
      Quality b = right.eval(in);
      return (a == b) == equal;
    }
  }

  /** {@code x in [...]}, or {@code not in} when negated; false if any value is absent. */
  record NumIn(NumExpr left, NumExpr[] items, boolean negated) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      double a = left.eval(in);
      if (Double.isNaN(a)) {
        return false;
      }
      boolean found = false;
      for (NumExpr item : items) {
        double b = item.eval(in);
        if (Double.isNaN(b)) {
          return false;
        }
        found |= a == b;
      }
      return found != negated;
    }
  }

  record BoolIn(BoolExpr left, BoolExpr[] items, boolean negated) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      int a = left.tri(in);
      if (a == ABSENT) {
        return false;
      }
      boolean found = false;
      for (BoolExpr item : items) {
        int b = item.tri(in);
        if (b == ABSENT) {
          return false;
        }
        found |= a == b;
      }
      return found != negated;
    }
  }

  record TextIn(TextExpr left, TextExpr[] items, boolean negated) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      String a = left.eval(in);
      if (a == null) {
        return false;
      }
      boolean found = false;
      for (TextExpr item : items) {
        String b = item.eval(in);
        if (b == null) {
          return false;
        }
        found |= a.equals(b);
      }
      return found != negated;
    }
  }

  record QualityIn(QualityExpr left, QualityExpr[] items, boolean negated) implements BoolExpr {
    @Override
    public boolean test(Inputs in) {
      Quality a = left.eval(in);
      boolean found = false;
      for (QualityExpr item : items) {
        found |= a == item.eval(in);
      }
      return found != negated;
    }
  }
}
