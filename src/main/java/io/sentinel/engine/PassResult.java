package io.sentinel.engine;

import io.sentinel.arbitration.Decision;
import io.sentinel.derived.Firing;
import io.sentinel.point.Transition;
import java.util.List;

/** Everything one pass produced, in the order it happened. */
public record PassResult(
    List<Transition> transitions,
    List<ClaimChange> claimChanges,
    List<Decision> decisions,
    List<ActionFired> actions,
    List<ControlEvent> events,
    List<SelfPoint> selfPoints,
    List<Firing> firings) {

  /** A result without pattern firings (tests of what consumes the engine's outputs). */
  public PassResult(
      List<Transition> transitions,
      List<ClaimChange> claimChanges,
      List<Decision> decisions,
      List<ActionFired> actions,
      List<ControlEvent> events,
      List<SelfPoint> selfPoints) {
    this(transitions, claimChanges, decisions, actions, events, selfPoints, List.of());
  }

  public boolean isEmpty() {
    return transitions.isEmpty()
        && claimChanges.isEmpty()
        && decisions.isEmpty()
        && actions.isEmpty()
        && events.isEmpty()
        && selfPoints.isEmpty()
        && firings.isEmpty();
  }
}
