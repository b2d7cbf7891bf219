package io.sentinel.store;

/**
 * Counters, for metrics and tests: offers taken, rows PostgreSQL committed, records counted lost,
 * the durable mark, whether PostgreSQL is behind, the journal's bytes and segments on disk, its
 * syncs (count, total and longest seconds), rows set aside, PostgreSQL's batches (count, total
 * seconds), how long it has been behind, and the records the feeder took from memory (just written)
 * and read back from disk.
 */
public record JournalStats(
    long offered,
    long written,
    long lost,
    long durableSeq,
    boolean degraded,
    long bytes,
    int segments,
    long syncs,
    double syncSeconds,
    double maxSyncSeconds,
    long records,
    long deadLetters,
    long feedBatches,
    double feedSeconds,
    double feedLagSeconds,
    long fedFromMemory,
    long fedFromDisk) {}
