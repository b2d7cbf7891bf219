package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.store.Journal;
import io.sentinel.store.PassRecorder;
import java.time.Instant;
import java.util.List;

/**
 * The engine loop's log in the gateway: passes through the recorder, marks from the journal. The
 * first pass is preceded by the start's event ({@code started}, given the pass's instant).
 */
final class JournalPassLog implements PassLog {
  private final PassRecorder recorder;
  private final Journal journal;
  private java.util.function.Function<Instant, ControlEvent> started;

  JournalPassLog(
      PassRecorder recorder,
      Journal journal,
      java.util.function.Function<Instant, ControlEvent> started) {
    this.recorder = recorder;
    this.journal = journal;
    this.started = started;
  }

  @Override
  public long record(Instant now, List<Observation> observations, PassResult result) {
    if (started != null) {
      journal.offerEvent(started.apply(now));
      started = null;
    }
    return recorder.record(now, observations, result);
  }

  @Override
  public long durableSeq() {
    return journal.durableSeq();
  }

  @Override
  public void onDurable(Runnable moved) {
    journal.onDurable(moved);
  }

  @Override
  public void acknowledged(long through, Instant at) {
    journal.offerAcknowledged(through, at);
  }

  @Override
  public void events(List<ControlEvent> events) {
    events.forEach(journal::offerEvent);
  }

  /**
   * The start as the log keeps it, at the instant of the engine's first pass: replay reproduces
   * each start as a cold start of this revision (docs/replay.md). {@code tenure}: with a standby,
   * which core and epoch started ("; active core …, epoch N"), else empty.
   */
  static java.util.function.Function<Instant, io.sentinel.engine.ControlEvent> started(
      long revision, Instant engineStart, String tenure) {
    return firstPass ->
        new io.sentinel.engine.ControlEvent(
            io.sentinel.store.Timelines.STARTED,
            "core",
            "revision "
                + revision
                + ": cold start at "
                + engineStart
                + ", every rule in warmup, fail-safe interlocks asserted"
                + tenure,
            firstPass);
  }
}
