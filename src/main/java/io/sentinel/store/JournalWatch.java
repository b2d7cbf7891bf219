package io.sentinel.store;

import io.sentinel.door.Door;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Whether the journal moves (issue 13: the gateway froze while liveness said UP). Three ways it
 * cannot, each counted from when it began, a stall once one lasts {@code stuckAfter}
 * (docs/persistence.md, "Liveness"):
 *
 * <ul>
 *   <li>its disk fails: nothing is synced, so nothing is acknowledged;
 *   <li>it is at its bound: the writer waits, no MQTT message is acknowledged and the broker stops
 *       delivering, so the gateway takes no new input (whether PostgreSQL is away or refuses);
 *   <li>PostgreSQL answers and takes nothing (a missing table, its disk full, a permission): the
 *       journal only fills.
 * </ul>
 *
 * PostgreSQL merely away, with room in the journal, is no stall: the gateway ingests, decides and
 * acknowledges, and readiness says it. A stall ends as soon as its cause does.
 */
final class JournalWatch {
  private final Duration stuckAfter;
  private final LongSupplier nanos;
  private volatile long diskFailingSince;
  private volatile String diskError = "";
  private volatile long fullSince;
  private boolean stallSaid;

  JournalWatch(Duration stuckAfter, LongSupplier nanos) {
    this.stuckAfter = stuckAfter;
    this.nanos = nanos;
  }

  void synced() {
    diskFailingSince = 0;
  }

  void diskFailed(IOException e) {
    diskError = Door.escaped(String.valueOf(e.getMessage()));
    if (diskFailingSince == 0) {
      diskFailingSince = nanos.getAsLong() | 1;
    }
  }

  boolean diskFailing() {
    return diskFailingSince != 0;
  }

  void full(boolean isFull) {
    if (!isFull) {
      fullSince = 0;
    } else if (fullSince == 0) {
      fullSince = nanos.getAsLong() | 1;
    }
  }

  /**
   * The stall, if there is one now: the disk's first, then the bound's, then PostgreSQL's.
   *
   * @param refusingSince when PostgreSQL began to answer every batch with an error (0: it does not)
   * @param feedError why PostgreSQL last did not take a batch
   * @param bound what the journal holds against its bound, for the message
   */
  Optional<JournalStall> stall(long refusingSince, String feedError, String bound) {
    long now = nanos.getAsLong();
    String postgres = feedError.isEmpty() ? "" : "; PostgreSQL: " + Door.escaped(feedError);
    Optional<Duration> disk = lasting(diskFailingSince, now);
    if (disk.isPresent()) {
      return Optional.of(
          new JournalStall(
              "the journal's disk fails ("
                  + diskError
                  + "): nothing is synced, no MQTT message is acknowledged",
              disk.get()));
    }
    Optional<Duration> full = lasting(fullSince, now);
    if (full.isPresent()) {
      return Optional.of(
          new JournalStall(
              "the journal is at its bound ("
                  + bound
                  + "): no MQTT message is acknowledged, so the gateway takes no new input"
                  + postgres,
              full.get()));
    }
    return lasting(refusingSince, now)
        .map(
            d ->
                new JournalStall(
                    "PostgreSQL answers and takes none of the journal's batches"
                        + postgres
                        + ": the journal only fills",
                    d));
  }

  /**
   * What to say when a stall begins or ends (once each; on the feeder's thread, which calls this
   * every round): empty while nothing changed.
   */
  Optional<String> changed(Optional<JournalStall> stall) {
    if (stall.isPresent() == stallSaid) {
      return Optional.empty();
    }
    stallSaid = stall.isPresent();
    return Optional.of(
        stall
            .map(
                s ->
                    "the journal cannot move, for "
                        + s.lasting().toSeconds()
                        + " s: "
                        + s.reason()
                        + "; liveness (sentinel-journal) is down")
            .orElse("the journal moves again: liveness (sentinel-journal) is up"));
  }

  private Optional<Duration> lasting(long since, long now) {
    if (since == 0) {
      return Optional.empty();
    }
    Duration d = Duration.ofNanos(now - since);
    return d.compareTo(stuckAfter) >= 0 ? Optional.of(d) : Optional.empty();
  }
}
