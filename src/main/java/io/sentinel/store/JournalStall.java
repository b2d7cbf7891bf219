package io.sentinel.store;

import java.time.Duration;

/**
 * Why the journal cannot move, and for how long already: what liveness ({@code sentinel-journal})
 * says while it is down.
 */
public record JournalStall(String reason, Duration lasting) {}
