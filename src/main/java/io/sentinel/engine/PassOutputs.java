package io.sentinel.engine;

import io.sentinel.arbitration.Decision;
import io.sentinel.derived.Firing;
import io.sentinel.point.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What the pass under way has produced so far; every room of the engine writes here. */
final class PassOutputs {
  List<Transition> transitions = new ArrayList<>();
  List<ClaimChange> claimChanges = new ArrayList<>();
  List<Decision> decisions = new ArrayList<>();
  List<ActionFired> actions = new ArrayList<>();
  List<ControlEvent> events = new ArrayList<>();
  List<SelfPoint> selfPoints = new ArrayList<>();
  List<Firing> firings = new ArrayList<>();

  void event(String kind, String subject, String message, Instant t) {
    events.add(new ControlEvent(kind, subject, message, t));
  }

  /**
   * Hands over what was produced and starts afresh for the next pass. An empty list is handed over
   * as {@code List.of()} and kept; a full one is handed over and replaced by one sized as it was,
   * so that a pass of a hundred transitions does not grow its list from ten.
   */
  PassResult take() {
    PassResult r =
        new PassResult(
            give(transitions),
            give(claimChanges),
            give(decisions),
            give(actions),
            give(events),
            give(selfPoints),
            give(firings));
    transitions = fresh(transitions);
    claimChanges = fresh(claimChanges);
    decisions = fresh(decisions);
    actions = fresh(actions);
    events = fresh(events);
    selfPoints = fresh(selfPoints);
    firings = fresh(firings);
    return r;
  }

  private static <T> List<T> give(List<T> l) {
    return l.isEmpty() ? List.of() : l;
  }

  private static <T> List<T> fresh(List<T> l) {
    return l.isEmpty() ? l : new ArrayList<>(Math.max(10, l.size()));
  }
}
