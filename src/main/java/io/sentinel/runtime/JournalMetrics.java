package io.sentinel.runtime;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sentinel.store.Journal;
import io.sentinel.store.JournalStats;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The journal's meters on /q/metrics (Prometheus names in brackets): depth on disk, syncs, the feed
 * into PostgreSQL, rows set aside. Read from {@link Journal#stats()} when scraped. Registered anew
 * at each start (a restart replaces the journal); Micrometer keeps the first registration of a
 * name, so the functions read the gateway's current journal.
 */
final class JournalMetrics {
  private static volatile Journal current;
  private static MeterRegistry registeredIn;

  private JournalMetrics() {}

  static synchronized void register(MeterRegistry r, Journal journal) {
    current = journal;
    if (registeredIn == r) {
      return;
    }
    registeredIn = r;
    gauge(
        r,
        "sentinel.journal.bytes",
        "bytes",
        "Bytes of the local journal's segments on disk (sentinel_journal_bytes)",
        s -> s.bytes());
    gauge(
        r,
        "sentinel.journal.segments",
        null,
        "Segment files of the local journal (sentinel_journal_segments)",
        s -> s.segments());
    gauge(
        r,
        "sentinel.journal.depth",
        null,
        "Offers waiting in memory for the journal's writer (sentinel_journal_depth)",
        s -> journal().backlog());
    gauge(
        r,
        "sentinel.journal.full",
        null,
        "1 while the journal is at its bound on disk and acknowledgements stop (sentinel_journal_full)",
        s -> journal().full() ? 1 : 0);
    gauge(
        r,
        "sentinel.journal.feed.lag",
        "seconds",
        "How long PostgreSQL has been behind the local journal (sentinel_journal_feed_lag_seconds)",
        s -> s.feedLagSeconds());
    gauge(
        r,
        "sentinel.journal.degraded",
        null,
        "1 while PostgreSQL does not take the journal's batches (sentinel_journal_degraded)",
        s -> s.degraded() ? 1 : 0);
    counter(
        r,
        "sentinel.journal.fsyncs",
        "fdatasync calls of the journal's group commit (sentinel_journal_fsyncs_total)",
        s -> s.syncs());
    counter(
        r,
        "sentinel.journal.records",
        "Records written to the local journal, one per pass or other offer (sentinel_journal_records_total)",
        s -> s.records());
    counter(
        r,
        "sentinel.journal.rows.fed",
        "Rows PostgreSQL committed from the journal (sentinel_journal_rows_fed_total)",
        s -> s.written());
    counter(
        r,
        "sentinel.journal.dead.letters",
        "Rows PostgreSQL refused, set aside in dead_letters (sentinel_journal_dead_letters_total)",
        s -> s.deadLetters());
    counter(
        r,
        "sentinel.journal.lost",
        "Records the journal could not keep: its queue in memory was full (sentinel_journal_lost_total)",
        s -> s.lost());
    FunctionTimer.builder(
            "sentinel.journal.sync",
            JournalMetrics.class,
            c -> stats().syncs(),
            c -> stats().syncSeconds(),
            TimeUnit.SECONDS)
        .description("The journal's group-commit syncs (sentinel_journal_sync_seconds_count/_sum)")
        .register(r);
    FunctionTimer.builder(
            "sentinel.journal.feed.batch",
            JournalMetrics.class,
            c -> stats().feedBatches(),
            c -> stats().feedSeconds(),
            TimeUnit.SECONDS)
        .description(
            "PostgreSQL transactions of the journal's feed (sentinel_journal_feed_batch_seconds_count/_sum)")
        .register(r);
  }

  private static Journal journal() {
    return current;
  }

  private static JournalStats stats() {
    return current.stats();
  }

  private static void gauge(
      MeterRegistry r, String name, String unit, String help, ToDoubleFunction<JournalStats> f) {
    Gauge.builder(name, JournalMetrics.class, c -> f.applyAsDouble(stats()))
        .baseUnit(unit)
        .description(help)
        .register(r);
  }

  private static void counter(
      MeterRegistry r, String name, String help, ToDoubleFunction<JournalStats> f) {
    FunctionCounter.builder(name, JournalMetrics.class, c -> f.applyAsDouble(stats()))
        .description(help)
        .register(r);
  }
}
