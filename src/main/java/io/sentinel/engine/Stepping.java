package io.sentinel.engine;

import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The pass and its stepping ({@link Engine#pass}): every distinct instant at which samples arrive
 * or a timer falls due is one step. A step applies its samples to the point table, lets the
 * watchdog and derived points settle, then visits each affected rule once and settles the claims
 * that changed.
 */
final class Stepping {
  private final Engine e;

  /** The samples' point positions in the step under way, reused. */
  private int[] stepIndexes = new int[0];

  private static final Transition[] NONE_CAUSED = new Transition[0];

  Stepping(Engine engine) {
    this.e = engine;
  }

  /** See {@link Engine#pass}. */
  PassResult pass(Instant now, List<Sample> samples, boolean ingestLagging) {
    if (now.isBefore(e.clock)) {
      throw new IllegalArgumentException("time runs forward: " + now + " is before " + e.clock);
    }
    if (e.lagTime.setLagging(ingestLagging)) {
      e.policy.rescheduleDeadlines(e.rules, e.clock);
      e.derived.lagEnded(e.clock);
    }
    e.points.countLiveSinceStart(!ingestLagging);
    List<Sample> ordered = inOrder(samples);
    if (!ordered.isEmpty() && ordered.get(0).at().isBefore(e.clock)) {
      throw new IllegalArgumentException(
          "sample of "
              + ordered.get(0).pointId()
              + " at "
              + ordered.get(0).at()
              + " lies before "
              + e.clock);
    }
    if (!ordered.isEmpty() && ordered.get(ordered.size() - 1).at().isAfter(now)) {
      throw new IllegalArgumentException("a sample lies after now " + now);
    }
    int i = 0;
    while (true) {
      Instant nextSample = i < ordered.size() ? ordered.get(i).at() : null;
      Instant nextTimer = e.nextDueOrNull();
      if (nextTimer != null && nextTimer.isAfter(now)) {
        nextTimer = null;
      }
      if (nextSample == null && nextTimer == null) {
        break;
      }
      Instant t =
          nextSample == null
              ? nextTimer
              : nextTimer == null || nextSample.isBefore(nextTimer) ? nextSample : nextTimer;
      int j = i;
      while (j < ordered.size() && ordered.get(j).at().equals(t)) {
        j++;
      }
      step(t, ordered.subList(i, j));
      i = j;
    }
    if (!e.activated || e.operator.pending()) {
      // Nothing else to step through: an operator's request still takes effect in this pass.
      step(now, List.of());
    }
    advance(now);
    return e.out.take();
  }

  /**
   * The samples in time order, ties as given: the list itself when it is in order already (as a
   * gateway hands them over), else a sorted copy (the sort is stable).
   */
  private static List<Sample> inOrder(List<Sample> samples) {
    if (samples instanceof java.util.RandomAccess) {
      boolean sorted = true;
      for (int k = 1; k < samples.size() && sorted; k++) {
        sorted = !samples.get(k).at().isBefore(samples.get(k - 1).at());
      }
      if (sorted) {
        return samples;
      }
    }
    List<Sample> ordered = new ArrayList<>(samples);
    ordered.sort(Comparator.comparing(Sample::at));
    return ordered;
  }

  private void advance(Instant t) {
    if (t.isAfter(e.clock)) {
      e.lagTime.advance(t);
      e.clock = t;
    }
  }

  private void step(Instant t, List<Sample> samples) {
    advance(t);
    e.triggers.clear();
    if (e.operator.pending()) {
      e.operator.apply(t, e.byId::get, e.policy);
    }
    if (!e.activated) {
      e.activated = true;
      for (RuleRuntime r : e.rules) {
        e.triggers.touch(r.index, Triggers.ACTIVATION);
        e.policy.startInterval(r, t);
      }
    }
    for (Timers.Timer timer; (timer = e.timers.pollDue(t)) != null; ) {
      if (timer.ofRule()) {
        e.triggers.touch(timer.rule(), Triggers.TIMER);
      } else if (timer.rule() == Timers.OVERRIDE_END) {
        e.operator.end(timer.point(), t, false);
      } else {
        e.flaps.recheck(timer.point(), t);
      }
    }
    if (stepIndexes.length < samples.size()) {
      stepIndexes = new int[samples.size()];
    }
    int[] indexes = stepIndexes;
    // The transitions the samples caused: a young array of the step's own, not one kept across
    // steps, into which G1 would fence every store (a reference into a long-lived object).
    Transition[] caused = samples.isEmpty() ? NONE_CAUSED : new Transition[samples.size()];
    for (int k = 0; k < samples.size(); k++) {
      Sample s = samples.get(k);
      indexes[k] = e.points.indexOf(s);
      if (indexes[k] < 0) {
        throw new IllegalArgumentException("unknown point " + s.pointId());
      }
      boolean wasLive = e.points.liveSinceStart(indexes[k]);
      caused[k] = e.points.applyOrNull(indexes[k], s.value(), s.quality(), s.at());
      if (caused[k] == null && !wasLive && e.points.liveSinceStart(indexes[k])) {
        e.triggers.touchWarmingUp(indexes[k]);
      }
    }
    // The watchdog and derived points settle before any rule sees the step.
    List<Transition> settled = e.derived.step(t, samples, indexes, caused);
    e.out.firings.addAll(e.derived.drainFirings());
    for (int k = 0; k < samples.size(); k++) {
      if (caused[k] != null) {
        e.out.transitions.add(caused[k]);
        e.triggers.touchDependents(indexes[k], caused[k]);
      }
    }
    for (int k = 0; k < settled.size(); k++) {
      e.out.transitions.add(settled.get(k));
      e.triggers.touchDependents(e.derived.stepPoint(k), settled.get(k));
    }
    visitTouched(t);
    e.claims.settle(t);
  }

  /**
   * Rules are visited in rule-set order, each once per step, after every input has settled: no rule
   * sees another rule's claim from the same step.
   */
  void visitTouched(Instant t) {
    int count = e.triggers.sortTouched();
    for (int k = 0; k < count; k++) {
      int idx = e.triggers.touched(k);
      e.policy.visit(e.rules[idx], t, e.triggers.takeFlags(idx));
    }
  }
}
