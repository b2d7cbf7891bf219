package io.sentinel.store;

import io.sentinel.door.Door;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Value;
import io.sentinel.store.wal.GroupCommit;
import io.sentinel.store.wal.Position;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * What the journal's writer ({@link GroupCommit.Listener}) and feeder ({@link Feeder.Events})
 * report to {@link Journal}, and what is said of it: the durable mark moved; the journal full,
 * stuck, behind PostgreSQL, refused a row or overflowing in memory, each logged, raised to the
 * runtime ({@link Journal.Alarms}) and offered to the log itself as a control event.
 */
final class JournalSignals implements GroupCommit.Listener, Feeder.Events {
  private static final Logger LOG = Logger.getLogger(Journal.class);

  private final Journal journal;
  private final Journal.Alarms alarms;
  private final JournalWatch watch;
  private final InstantSource clock;
  private long lastFailureLog;
  private long lastDeadLetterLog;

  /** Guarded by the journal's monitor (its offers): whether records are being lost. */
  private boolean overflowing;

  private long lostReported;

  JournalSignals(Journal journal, Journal.Alarms alarms, JournalWatch watch, InstantSource clock) {
    this.journal = journal;
    this.alarms = alarms;
    this.watch = watch;
    this.clock = clock;
  }

  @Override
  public void durable(long mark, Position end) {
    watch.synced();
    journal.durable(mark);
  }

  @Override
  public void full(boolean isFull, long bytes, long maxBytes) {
    journal.full(isFull);
    watch.full(isFull);
    Instant now = clock.instant();
    String message =
        isFull
            ? "the journal is at its bound ("
                + bytes
                + " of "
                + maxBytes
                + " bytes on disk, PostgreSQL behind: "
                + journal.feeder().lastError()
                + "): passes wait in memory and MQTT messages are not acknowledged, so the"
                + " broker holds the backlog"
            : "the journal has room again (" + bytes + " of " + maxBytes + " bytes)";
    if (isFull) {
      LOG.errorf("SEN-DB-064 %s", message);
    } else {
      LOG.infof("SEN-DB-065 %s", message);
    }
    ControlEvent e =
        new ControlEvent(isFull ? "journal-full" : "journal-room", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.full", Value.of(isFull), now));
    journal.offerEvent(e);
  }

  @Override
  public void failed(IOException e) {
    watch.diskFailed(e);
    long now = System.nanoTime();
    if (now - lastFailureLog > TimeUnit.SECONDS.toNanos(10)) {
      lastFailureLog = now;
      LOG.errorf(
          "SEN-DB-066 the journal cannot write to %s (%s): retried every second; nothing is"
              + " acknowledged meanwhile",
          journal.dir(), e.getMessage());
    }
  }

  @Override
  public void tick() {
    Optional<JournalStall> s = journal.stall();
    watch
        .changed(s)
        .ifPresent(
            message -> {
              boolean stuck = s.isPresent();
              if (stuck) {
                LOG.errorf("SEN-107 %s", message);
              } else {
                LOG.infof("SEN-108 %s", message);
              }
              Instant now = clock.instant();
              ControlEvent e =
                  new ControlEvent(
                      stuck ? "journal-stuck" : "journal-moving", "journal", message, now);
              alarms.raised(e, new SelfPoint("journal.stuck", Value.of(stuck), now));
              journal.offerEvent(e);
            });
  }

  @Override
  public void degraded(String why) {
    Instant now = clock.instant();
    String message =
        "PostgreSQL does not take the journal's batches ("
            + Door.escaped(why)
            + "): the local journal holds them and PostgreSQL catches up when it answers";
    ControlEvent e = new ControlEvent("journal-degraded", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.degraded", Value.TRUE, now));
    journal.offerEvent(e);
  }

  @Override
  public void recovered() {
    Instant now = clock.instant();
    ControlEvent e =
        new ControlEvent(
            "journal-recovered",
            "journal",
            "PostgreSQL takes the journal's batches again: it catches up in order",
            now);
    alarms.raised(e, new SelfPoint("journal.degraded", Value.FALSE, now));
    journal.offerEvent(e);
  }

  @Override
  public void deadLettered(Row row, String reason) {
    Instant now = clock.instant();
    String message =
        "PostgreSQL refused a "
            + row.table().name
            + " row (seq "
            + row.seq()
            + "): "
            + Door.escaped(reason)
            + "; set aside in dead_letters, the rest flows on";
    long t = System.nanoTime();
    if (t - lastDeadLetterLog > TimeUnit.SECONDS.toNanos(10)) {
      lastDeadLetterLog = t;
      LOG.warnf("SEN-DB-067 %s (counted in sentinel_journal_dead_letters_total)", message);
    }
    ControlEvent e = new ControlEvent("journal-dead-letter", "journal", message, now);
    alarms.raised(
        e,
        new SelfPoint(
            "journal.dead_letters", Value.of((double) journal.feeder().deadLettered()), now));
    journal.offerEvent(e);
  }

  /** Whether records are being lost (under the journal's monitor). */
  boolean overflowing() {
    return overflowing;
  }

  /** The queue in memory is full: records are being lost (said once, until {@link #settle}). */
  void overflow(String why, long lostSoFar) {
    if (overflowing) {
      return;
    }
    overflowing = true;
    Instant now = clock.instant();
    String message = why + ": records are being lost (" + lostSoFar + " so far)";
    LOG.errorf("SEN-DB-032 %s", message);
    alarms.raised(
        new ControlEvent("journal-overflow", "journal", message, now),
        new SelfPoint("journal.overflow", Value.TRUE, now));
  }

  /** Room again: the loss goes into the log itself, with its count. */
  void settle(long lost) {
    overflowing = false;
    long n = lost - lostReported;
    lostReported = lost;
    Instant now = clock.instant();
    String message = n + " journal records were lost while the journal was full";
    LOG.warnf("SEN-DB-033 %s", message);
    ControlEvent e = new ControlEvent("journal-lost", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.overflow", Value.FALSE, now));
    journal.offerEvent(e);
  }
}
