package io.sentinel.engine;

import java.time.Instant;

/**
 * Something the engine did to protect itself or that an operator should see: warmup-left,
 * input-lost, inputs-restored, hold-expired, claim-expired, rule-suspended, rule-resumed,
 * point-flapping, point-settled, override-set, override-cleared, override-expired,
 * override-restored (after a restart), override-dropped (its point no longer takes it). {@code
 * subject} is the rule or point it concerns.
 */
public record ControlEvent(String kind, String subject, String message, Instant at) {
  /** An operator resumed a suspended rule (the audit trail records it). */
  public static final String RULE_RESUMED = "rule-resumed";
}
