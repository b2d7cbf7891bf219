package io.sentinel.passlog;

/**
 * An observation with its place in the log: {@code seq} increases with every record the journal
 * takes, across restarts, so the log's order is the order the engine saw.
 */
public record LoggedObservation(long seq, Observation observation) {}
