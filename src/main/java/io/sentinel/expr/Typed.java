package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import java.util.List;

/** The type of a checked sub-expression, with its typed tree. */
sealed interface Typed {
  /** A node that failed: nothing more is reported about it. */
  Typed ERR = new Err();

  record B(BoolExpr e) implements Typed {}

  /** bare: a number written without unit, which takes the unit of the other side. */
  record N(NumExpr e, MeasureUnit unit, boolean bare) implements Typed {}

  /** enumValues is null for a string point. */
  record T(TextExpr e, List<String> enumValues) implements Typed {}

  record Q(QualityExpr e) implements Typed {}

  /** A bare word, resolved once the other side of a comparison tells what it is. */
  record Sym(String name) implements Typed {}

  record Err() implements Typed {}
}
