package io.sentinel.engine;

/** How the engine begins. */
public enum StartMode {
  /** A real start: every rule in warmup, fail-safe interlocks asserting at once. */
  COLD,
  /**
   * As if the core had been running: warmup is over and every point counts as live since start. For
   * fixtures that test a rule's logic rather than its start.
   */
  WARM
}
