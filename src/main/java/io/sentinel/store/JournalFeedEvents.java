package io.sentinel.store;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Value;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * What the {@link Journal} says of its feed to PostgreSQL: degraded, recovered, a row set aside in
 * {@code dead_letters}; each an alarm (its self point) and a control event the journal keeps.
 */
final class JournalFeedEvents implements Feeder.Events {
  private static final Logger LOG = Logger.getLogger(Journal.class);

  private final InstantSource clock;
  private final Journal.Alarms alarms;
  private final Consumer<ControlEvent> offer;
  private final LongSupplier deadLettered;

  /**
   * @param offer keeps a control event in the journal
   * @param deadLettered the rows set aside so far
   */
  JournalFeedEvents(
      InstantSource clock,
      Journal.Alarms alarms,
      Consumer<ControlEvent> offer,
      LongSupplier deadLettered) {
    this.clock = clock;
    this.alarms = alarms;
    this.offer = offer;
    this.deadLettered = deadLettered;
  }

  private long lastDeadLetterLog;

  @Override
  public void degraded(String why) {
    Instant now = clock.instant();
    String message =
        "PostgreSQL does not take the journal's batches ("
            + DeadLetters.printable(why)
            + "): the local journal holds them and PostgreSQL catches up when it answers";
    ControlEvent e = new ControlEvent("journal-degraded", "journal", message, now);
    alarms.raised(e, new SelfPoint("journal.degraded", Value.TRUE, now));
    offer.accept(e);
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
    offer.accept(e);
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
            + DeadLetters.printable(reason)
            + "; set aside in dead_letters, the rest flows on";
    long t = System.nanoTime();
    if (t - lastDeadLetterLog > TimeUnit.SECONDS.toNanos(10)) {
      lastDeadLetterLog = t;
      LOG.warnf("SEN-DB-067 %s (counted in sentinel_journal_dead_letters_total)", message);
    }
    ControlEvent e = new ControlEvent("journal-dead-letter", "journal", message, now);
    alarms.raised(
        e, new SelfPoint("journal.dead_letters", Value.of((double) deadLettered.getAsLong()), now));
    offer.accept(e);
  }
}
