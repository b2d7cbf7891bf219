package io.sentinel.expr;

import java.util.Set;

/** A compiled {@code when:} expression. Thread-safe and immutable. */
public interface Condition {
  /**
   * Evaluates the expression against the current state of the inputs. Allocates nothing; a value
   * that is absent makes every comparison that involves it false.
   */
  boolean test(Inputs inputs);

  /**
   * How many of the condition's parts hold, asked only when the condition holds: arbitration
   * prefers the rule with more matched conditions when band, priority and freshness tie. A plain
   * expression is one part.
   */
  default int matched(Inputs inputs) {
    return 1;
  }

  /** The names of the declared inputs that the expression references, in declaration order. */
  Set<String> inputsRead();

  /** The source the condition was compiled from. */
  String source();
}
