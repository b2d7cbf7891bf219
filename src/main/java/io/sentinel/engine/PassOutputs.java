package io.sentinel.engine;

import io.sentinel.arbitration.Decision;
import io.sentinel.derived.Firing;
import io.sentinel.point.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** What the pass under way has produced so far; every room of the engine writes here. */
final class PassOutputs {
  List<Transition> transitions = new ArrayList<>();
  List<ClaimChange> claimChanges = new ArrayList<>();
  List<Decision> decisions = new ArrayList<>();
  List<ActionFired> actions = new ArrayList<>();
  List<ControlEvent> events = new ArrayList<>();
  List<SelfPoint> selfPoints = new ArrayList<>();
  List<Firing> firings = new ArrayList<>();

  /** The points whose claims changed since arbitration last settled. */
  Set<String> changedPoints = new LinkedHashSet<>();

  void event(String kind, String subject, String message, Instant t) {
    events.add(new ControlEvent(kind, subject, message, t));
  }

  /** Hands over what was produced and starts afresh for the next pass. */
  PassResult take() {
    PassResult r =
        new PassResult(transitions, claimChanges, decisions, actions, events, selfPoints, firings);
    transitions = new ArrayList<>();
    claimChanges = new ArrayList<>();
    decisions = new ArrayList<>();
    actions = new ArrayList<>();
    events = new ArrayList<>();
    selfPoints = new ArrayList<>();
    firings = new ArrayList<>();
    changedPoints = new LinkedHashSet<>();
    return r;
  }
}
