package io.sentinel.expr;

import io.sentinel.point.Quality;

/** A typed quality expression; a quality is never absent. Evaluation allocates nothing. */
sealed interface QualityExpr {
  Quality eval(Inputs in);

  record Const(Quality value) implements QualityExpr {
    @Override
    public Quality eval(Inputs in) {
      return value;
    }
  }

  record Input(int slot, String name) implements QualityExpr {
    @Override
    public Quality eval(Inputs in) {
      return in.quality(slot);
    }
  }
}
