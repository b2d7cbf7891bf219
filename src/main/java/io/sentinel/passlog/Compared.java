package io.sentinel.passlog;

import java.time.Instant;

/**
 * Something replay compares between history and its own run (a command, a claim change): when it
 * happened, whether another asks the same whenever it happened, and a line for an operator.
 */
public interface Compared<T> {
  Instant at();

  boolean sameAs(T other);

  String describe();
}
