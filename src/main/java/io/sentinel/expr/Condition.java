package io.sentinel.expr;

import java.util.Set;

/** A compiled {@code when:} expression. Thread-safe and immutable. */
public interface Condition {
  /**
   * Evaluates the expression against the current state of the inputs. Allocates nothing; a value
   * that is absent makes every comparison that involves it false.
   */
  boolean test(Inputs inputs);

  /** The names of the declared inputs that the expression references, in declaration order. */
  Set<String> inputsRead();

  /** The source the condition was compiled from. */
  String source();
}
