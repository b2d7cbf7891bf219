package io.sentinel.expr;

/** The stable codes of expression problems; docs/expressions.md gives an example of each. */
enum ProblemCode {
  /** A character that starts no token, or a number out of range. */
  BAD_CHARACTER("EXPR-001"),
  /** A text literal without its closing quote, or with an unknown escape. */
  BAD_TEXT("EXPR-002"),
  /** Tokens in an order the grammar does not allow, or more nesting or tokens than it bounds. */
  SYNTAX("EXPR-003"),
  /** A word after a number that is not a unit symbol. */
  UNKNOWN_UNIT("EXPR-004"),
  /** {@code name.value} or {@code name.quality} where name is not a declared input. */
  UNKNOWN_INPUT("EXPR-005"),
  /** A declared input used without {@code .value} or {@code .quality}. */
  BARE_INPUT("EXPR-006"),
  /** {@code name.something} other than value and quality. */
  UNKNOWN_MEMBER("EXPR-007"),
  /** Something that is not true/false where a condition is needed. */
  NOT_A_CONDITION("EXPR-008"),
  /** The two sides of ==, != or in are of different kinds. */
  KIND_MISMATCH("EXPR-009"),
  /** A symbol that is not a value of the enum it is compared with. */
  UNKNOWN_ENUM_SYMBOL("EXPR-010"),
  /** A symbol compared with a quality that is not a quality name. */
  UNKNOWN_QUALITY("EXPR-011"),
  /** {@code < <= > >=} with something that is not a number. */
  NOT_ORDERED("EXPR-012"),
  /** Arithmetic with something that is not a number. */
  NOT_A_NUMBER("EXPR-013"),
  /** Two numbers whose units cannot be converted into each other. */
  INCOMPATIBLE_UNITS("EXPR-014"),
  /** Both operands of * or / carry a unit. */
  UNIT_TIMES_UNIT("EXPR-015"),
  /** Division by a constant that is zero. */
  DIVISION_BY_ZERO("EXPR-016"),
  /** A bare word that is no input and whose meaning nothing around it tells. */
  UNRESOLVED_SYMBOL("EXPR-017");

  private final String code;

  ProblemCode(String code) {
    this.code = code;
  }

  String code() {
    return code;
  }
}
