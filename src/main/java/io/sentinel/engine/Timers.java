package io.sentinel.engine;

import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The engine's timers, in due order (ties in the order they were set): a rule's (warmup deadline,
 * hold, interval, expiry), a flap limit's recheck or an operator override's end.
 */
final class Timers {
  /** A timer of a rule ({@code rule >= 0}), a flap recheck ({@link #FLAP}) or an override's end. */
  record Timer(Instant due, long seq, int rule, String point) {
    boolean ofRule() {
      return rule >= 0;
    }
  }

  static final int FLAP = -1;
  static final int OVERRIDE_END = -2;

  private final PriorityQueue<Timer> queue =
      new PriorityQueue<>(Comparator.comparing(Timer::due).thenComparingLong(Timer::seq));
  private long seq;

  void rule(Instant due, int rule) {
    queue.add(new Timer(due, seq++, rule, null));
  }

  void flapRecheck(Instant due, String pointId) {
    queue.add(new Timer(due, seq++, FLAP, pointId));
  }

  void overrideEnd(Instant due, String pointId) {
    queue.add(new Timer(due, seq++, OVERRIDE_END, pointId));
  }

  /** The earliest due instant, or null when nothing is set. */
  Instant nextDueOrNull() {
    Timer next = queue.peek();
    return next == null ? null : next.due();
  }

  /** The next timer due at or before {@code t}, taken off the queue; null when none is. */
  Timer pollDue(Instant t) {
    Timer next = queue.peek();
    return next != null && !next.due().isAfter(t) ? queue.poll() : null;
  }

  /** Numbers new timers on from where the previous engine's left off (a revision). */
  void continueFrom(Timers previous) {
    seq = previous.seq;
  }

  /**
   * Carries the previous engine's timers over: flap and override timers as they are, a kept rule's
   * under its new position ({@code carried}: old index to new), a dropped rule's not at all.
   */
  void carry(Timers previous, Map<Integer, Integer> carried) {
    for (Timer t : previous.queue) {
      if (!t.ofRule()) {
        queue.add(t);
      } else if (carried.containsKey(t.rule())) {
        queue.add(new Timer(t.due(), t.seq(), carried.get(t.rule()), null));
      }
    }
  }
}
