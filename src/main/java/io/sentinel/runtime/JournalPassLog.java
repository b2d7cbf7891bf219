package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.store.Journal;
import io.sentinel.store.PassRecorder;
import java.time.Instant;
import java.util.List;

/** The engine loop's log in the gateway: passes through the recorder, marks from the journal. */
record JournalPassLog(PassRecorder recorder, Journal journal) implements EngineLoop.PassLog {
  @Override
  public long record(Instant now, List<Observation> observations, PassResult result) {
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
  public void events(List<ControlEvent> events) {
    events.forEach(journal::offerEvent);
  }
}
