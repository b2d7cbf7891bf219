package io.sentinel.engine;

import io.sentinel.point.Quality;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.Trigger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which rules a step visits, and why: the index from each point to the rules that read it (worked
 * out once, so a step's work follows its transitions, not the number of rules), and the set of
 * rules touched in the step under way with the reasons as flags.
 */
final class Triggers {
  /** A transition triggers the rule. */
  static final int TRIGGERED = 1;

  /** An input's quality moved. */
  static final int QUALITY = 2;

  /** One of the rule's timers fell due. */
  static final int TIMER = 4;

  /** The rule starts deciding: the first step, a revision, a resume. */
  static final int ACTIVATION = 8;

  /** The rule must re-derive its claims whatever triggered it (set while visiting). */
  static final int FORCED = 16;

  private static final byte NEVER = 0;
  private static final byte ALWAYS = 1;
  private static final byte CHECK = 2;

  private final RuleRuntime[] rules;

  /**
   * For each point, the rules that read it, two ints each, in one array so that a transition reads
   * one object: the rule's index, then its input slot times 4 plus whether a transition through
   * that slot triggers the rule: {@link #NEVER}, {@link #ALWAYS} or {@link #CHECK} (an edge or
   * quality trigger on that input, which depends on the transition). Worked out once from the
   * triggers, which do not change.
   */
  private final int[][] dependents;

  // The step's touched rules, reused to keep a step allocation-light.
  private final int[] touchedFlags;
  private final int[] touchedList;
  private int touchedCount;

  Triggers(RuleRuntime[] rules, int pointCount) {
    this.rules = rules;
    List<List<int[]>> deps = new ArrayList<>();
    for (int p = 0; p < pointCount; p++) {
      deps.add(new ArrayList<>());
    }
    for (RuleRuntime r : rules) {
      for (int slot = 0; slot < r.slots.length; slot++) {
        deps.get(r.slots[slot]).add(new int[] {r.index, slot});
      }
    }
    dependents = new int[pointCount][];
    for (int p = 0; p < pointCount; p++) {
      List<int[]> d = deps.get(p);
      dependents[p] = new int[2 * d.size()];
      for (int k = 0; k < d.size(); k++) {
        RuleRuntime r = rules[d.get(k)[0]];
        int slot = d.get(k)[1];
        dependents[p][2 * k] = r.index;
        dependents[p][2 * k + 1] = slot * 4 + triggerKind(r.rule.trigger(), r.inputNames[slot]);
      }
    }
    touchedFlags = new int[rules.length];
    touchedList = new int[rules.length];
  }

  void touch(int rule, int flags) {
    if (touchedFlags[rule] == 0) {
      touchedList[touchedCount++] = rule;
    }
    touchedFlags[rule] |= flags;
  }

  /**
   * Point {@code p} has just become live since start without a transition (a fresh sample that
   * repeats the value a drained backlog left, docs/live.md): the rules in warmup that read it look
   * at their warmup again.
   */
  void touchWarmingUp(int p) {
    int[] deps = dependents[p];
    for (int k = 0; k < deps.length; k += 2) {
      if (rules[deps[k]].state == RuleState.WARMUP) {
        touch(deps[k], QUALITY);
      }
    }
  }

  /** Marks the rules that a transition of point {@code p} triggers or whose input quality moved. */
  void touchDependents(int p, Transition tr) {
    int[] deps = dependents[p];
    for (int k = 0; k < deps.length; k += 2) {
      int rule = deps[k];
      int kind = deps[k + 1] & 3;
      int flags = tr.qualityChanged() ? QUALITY : 0;
      if (kind == ALWAYS || kind == CHECK && triggersThrough(rules[rule].rule.trigger(), tr)) {
        flags |= TRIGGERED;
      }
      if (flags != 0) {
        touch(rule, flags);
      }
    }
  }

  /** Starts the step's set afresh. */
  void clear() {
    touchedCount = 0;
  }

  /** Orders the touched rules by rule-set position; returns how many there are. */
  int sortTouched() {
    // Sorted only when out of order: touched in rule order already, a step needs no sort.
    for (int k = 1; k < touchedCount; k++) {
      if (touchedList[k] < touchedList[k - 1]) {
        Arrays.sort(touchedList, 0, touchedCount);
        break;
      }
    }
    return touchedCount;
  }

  /** The k-th touched rule after {@link #sortTouched()}. */
  int touched(int k) {
    return touchedList[k];
  }

  /** A touched rule's flags, cleared as they are taken. */
  int takeFlags(int rule) {
    int flags = touchedFlags[rule];
    touchedFlags[rule] = 0;
    return flags;
  }

  /** Forgets what was touched without visiting it (a revision before the first pass). */
  void forget() {
    for (int k = 0; k < touchedCount; k++) {
      touchedFlags[touchedList[k]] = 0;
    }
    touchedCount = 0;
  }

  /** What {@link #triggers} can tell of a rule's input slot before any transition. */
  private static byte triggerKind(Trigger trigger, String input) {
    if (trigger instanceof Trigger.OnTransition t) {
      return t.of().contains(input) ? ALWAYS : NEVER;
    }
    if (trigger instanceof Trigger.OnEdge e) {
      return e.of().equals(input) ? CHECK : NEVER;
    }
    if (trigger instanceof Trigger.OnQuality q) {
      return q.of().equals(input) ? CHECK : NEVER;
    }
    return NEVER;
  }

  /**
   * Whether a transition of the input an edge or quality trigger is on ({@link #CHECK}: the slot's
   * input is the trigger's) triggers the rule.
   */
  private static boolean triggersThrough(Trigger trigger, Transition tr) {
    if (trigger instanceof Trigger.OnEdge e) {
      // A value kept from before a restart is no reading: moving away from it is no edge.
      if (!tr.valueChanged()
          || !tr.previous().value().isPresent()
          || tr.previous().quality() == Quality.RESTORED) {
        return false;
      }
      int direction = compare(tr.previous().value(), tr.current().value());
      return e.edge() == Trigger.Edge.RISING ? direction > 0 : direction < 0;
    }
    if (trigger instanceof Trigger.OnQuality q) {
      return tr.qualityChanged() && q.matches(tr.current().quality());
    }
    return false;
  }

  /** Positive when the value rose (false to true, or a larger number). */
  private static int compare(Value before, Value after) {
    if (before instanceof Value.Bool b && after instanceof Value.Bool a) {
      return Boolean.compare(a.value(), b.value());
    }
    if (before instanceof Value.Num b && after instanceof Value.Num a) {
      return Double.compare(a.value(), b.value());
    }
    return 0;
  }
}
