package io.sentinel.engine;

import java.time.Instant;

/**
 * The instant of the step under way as a rule's conditions read it ({@link
 * io.sentinel.expr.Inputs#now}): one per engine, shared by its rules, set once a step. A rule is
 * its own {@code Inputs}, so that an evaluation stores no reference at all: under G1 each reference
 * stored into a long-lived object costs a barrier with a memory fence.
 */
final class StepInstant {
  private Instant now = Instant.EPOCH;

  Instant now() {
    return now;
  }

  /** Aims the rules' conditions at {@code t}; stores only when the step moved on. */
  void set(Instant t) {
    if (now != t) {
      now = t;
    }
  }
}
