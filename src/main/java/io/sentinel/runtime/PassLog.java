package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import java.time.Instant;
import java.util.List;

/**
 * Where each pass goes to be kept (the store's recorder), called on the engine's context right
 * after the pass, with the observations in the order the engine took them. Must not wait.
 */
@FunctionalInterface
public interface PassLog {
  PassLog NONE = (now, observations, result) -> -1;

  /**
   * Keeps one pass; returns the sequence number the log gave its last row, or -1 when it did not
   * keep it (no log, or the log refused it and said so).
   */
  long record(Instant now, List<Observation> observations, PassResult result);

  /** Everything up to this sequence number is durable (the store's journal: on disk). */
  default long durableSeq() {
    return Long.MAX_VALUE;
  }

  /**
   * Registers what the log calls, on any thread, each time its durable mark has moved: waiting
   * acknowledgements are released then, not on a timer.
   */
  default void onDurable(Runnable moved) {}

  /** The command plane's and the runtime's own events (the engine's are in its pass). */
  default void events(List<ControlEvent> events) {}

  /**
   * Every message taken in passes up to {@code through} has been acknowledged (handed to the MQTT
   * client's PUBACK): the mark a restart matches messages delivered again after (V13).
   */
  default void acknowledged(long through, Instant at) {}
}
