package io.sentinel.expr;

/** The comparison operators. */
enum CmpOp {
  EQ("=="),
  NE("!="),
  LT("<"),
  LE("<="),
  GT(">"),
  GE(">=");

  private final String symbol;

  CmpOp(String symbol) {
    this.symbol = symbol;
  }

  String symbol() {
    return symbol;
  }

  boolean isEquality() {
    return this == EQ || this == NE;
  }

  /** Compares two present numbers. */
  boolean test(double a, double b) {
    return switch (this) {
      case EQ -> a == b;
      case NE -> a != b;
      case LT -> a < b;
      case LE -> a <= b;
      case GT -> a > b;
      case GE -> a >= b;
    };
  }
}
