package io.sentinel.expr;

import io.sentinel.point.Value;

/**
 * A typed text expression (a string point or an enum point); null stands for an absent value.
 * Evaluation allocates nothing.
 */
sealed interface TextExpr {
  String eval(Inputs in);

  record Const(String value) implements TextExpr {
    @Override
    public String eval(Inputs in) {
      return value;
    }
  }

  record Input(int slot, String name) implements TextExpr {
    @Override
    public String eval(Inputs in) {
      return in.state(slot).value() instanceof Value.Text t ? t.value() : null;
    }
  }
}
