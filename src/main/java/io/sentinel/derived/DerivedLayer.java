package io.sentinel.derived;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.derived.KindState.Out;
import io.sentinel.derived.KindState.Update;
import io.sentinel.point.PointState;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The memory that rules are not allowed to have: the staleness watchdog and the derived points,
 * settled in topological order at each step before any rule evaluates. Work in a step is
 * proportional to what changed in it.
 */
public final class DerivedLayer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PointTable points;
  private final LagTime lag;
  private final DerivedPoint[] derived;
  private final int[] pointOf;
  private final int[][] inputsOf;

  /** For each point of the table, the derived points that read it (indexes into derived). */
  private final int[][] readers;

  private final KindState[] states;
  private final long[] generation;
  private final long[] seq;

  /**
   * The due instant of each derived point's pending timer as seconds ({@link Long#MIN_VALUE}: none)
   * and nanos, so that the timer loop tells a live timer from primitives.
   */
  private final long[] scheduledSecond;

  private final int[] scheduledNano;

  private final TimerHeap timers = new TimerHeap();
  private final Watchdog watchdog;
  private final List<Firing> firings = new ArrayList<>();

  /** One context per derived point, made once. */
  private final KindState.Context[] contexts;

  // Per-step scratch.
  private final StepUpdates stepUpdates;

  /** The updates a settle hands its kind. */
  private final List<Update> settleUpdates = new ArrayList<>();

  /** The transitions of the step (the engine's form returns this list; it reads it at once). */
  private final List<Transition> stepOut = new ArrayList<>();

  /** The point of each transition the last step returned, in the same order. */
  private int[] stepPoints = new int[64];

  private int stepPointCount;
  private final IntHeap affected = new IntHeap();
  private final boolean[] queued;

  public DerivedLayer(DerivedSet set, PointTable points, LagTime lag, Instant start) {
    this.points = points;
    this.lag = lag;
    this.derived = set.ordered().toArray(DerivedPoint[]::new);
    int n = derived.length;
    pointOf = new int[n];
    inputsOf = new int[n][];
    states = new KindState[n];
    generation = new long[n];
    scheduledSecond = new long[n];
    Arrays.fill(scheduledSecond, Long.MIN_VALUE);
    scheduledNano = new int[n];
    seq = new long[n];
    queued = new boolean[n];
    contexts = new KindState.Context[n];
    List<List<Integer>> readerLists = new ArrayList<>();
    for (int p = 0; p < points.size(); p++) {
      readerLists.add(new ArrayList<>());
    }
    watchdog = new Watchdog(points, lag, timers);
    for (int d = 0; d < n; d++) {
      pointOf[d] = requireIndex(derived[d].id());
      inputsOf[d] = derived[d].inputs().stream().mapToInt(this::requireIndex).toArray();
      for (int input : inputsOf[d]) {
        readerLists.get(input).add(d);
      }
      states[d] = KindState.of(derived[d].kind(), start);
      contexts[d] = context(d);
      generation[d] = 1;
      scheduleState(d);
    }
    // The points no derived point reads (most of a site) share one empty array: a sample of one
    // reads no array of its own.
    int[] none = new int[0];
    readers =
        readerLists.stream()
            .map(l -> l.isEmpty() ? none : l.stream().mapToInt(Integer::intValue).toArray())
            .toArray(int[][]::new);
    stepUpdates = new StepUpdates(points.size());
  }

  private int requireIndex(String id) {
    int i = points.indexOf(id);
    if (i < 0) {
      throw new IllegalArgumentException(
          "derived layer: point " + id + " is not in the point table");
    }
    return i;
  }

  /** The next instant at which the layer has something to do without new samples. */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(nextDueOrNull());
  }

  /** {@link #nextDue()} without the {@code Optional}: null for never. */
  public Instant nextDueOrNull() {
    while (!timers.isEmpty() && !headLive()) {
      timers.poll();
    }
    if (timers.isEmpty()) {
      return null;
    }
    int target = timers.peekTarget();
    // A live timer is its target's due instant (scheduleState keeps the two the same).
    return target >= 0 ? states[target].due : watchdog.due(Watchdog.pointOf(target));
  }

  /**
   * Whether the earliest timer is still the pending one of its target (a moved one leaves a stale
   * entry): for a derived point the one {@link #scheduleState} set last, which is its state's due
   * instant until it fires.
   */
  private boolean headLive() {
    int target = timers.peekTarget();
    if (target >= 0) {
      return scheduledSecond[target] == timers.peekSecond()
          && scheduledNano[target] == timers.peekNano();
    }
    return watchdog.live(timers.peekSecond(), timers.peekNano(), Watchdog.pointOf(target));
  }

  /** The firings since the last call. */
  public List<Firing> drainFirings() {
    if (firings.isEmpty()) {
      return List.of();
    }
    List<Firing> out = List.copyOf(firings);
    firings.clear();
    return out;
  }

  /** Lag ended: every watched point's due instant moves by the time lag held it back. */
  public void lagEnded(Instant t) {
    watchdog.lagEnded(t);
  }

  /**
   * One step at instant {@code t}: the watchdog ages what is due, then every derived point whose
   * inputs were sampled or changed, or whose own time is due, settles in topological order.
   *
   * @param samples the samples applied to the point table at {@code t}
   * @param transitions the transitions those samples caused
   * @return the transitions this layer caused (quality changes of watched points, derived values)
   */
  public List<Transition> step(Instant t, List<Sample> samples, List<Transition> transitions) {
    int[] indexes = new int[samples.size()];
    Transition[] caused = new Transition[samples.size()];
    for (int k = 0; k < samples.size(); k++) {
      indexes[k] = points.indexOf(samples.get(k).pointId());
      for (Transition tr : transitions) {
        if (tr.pointId().equals(samples.get(k).pointId())) {
          caused[k] = tr;
        }
      }
    }
    return new ArrayList<>(step(t, samples, indexes, caused));
  }

  /**
   * The engine's form of {@link #step(Instant, List, List)}: the samples' point positions, and the
   * transition each sample caused (null for none), so that nothing is looked up twice. The list
   * returned is the layer's own and valid until the next step: read it at once.
   */
  public List<Transition> step(
      Instant t, List<Sample> samples, int[] indexes, Transition[] caused) {
    List<Transition> out = stepOut;
    out.clear();
    stepPointCount = 0;
    for (int k = 0; k < samples.size(); k++) {
      int p = indexes[k];
      Transition tr = caused[k];
      if (readers[p].length > 0) {
        Sample s = samples.get(k);
        stepUpdates.add(
            p,
            new Update(
                0,
                s.value().isPresent() ? s.value() : points.state(p).value(),
                points.quality(p),
                tr != null && tr.valueChanged(),
                true,
                t));
      }
      // A pending watchdog check is earlier than any this sample would set; only a change of
      // quality can make the point age sooner.
      if (!watchdog.pending(p) || tr != null && tr.qualityChanged()) {
        watchdog.schedule(p, t);
      }
    }
    IntHeap affected = this.affected;

    while (timers.dueBy(t)) {
      boolean live = headLive();
      int target = timers.peekTarget();
      timers.poll();
      if (!live) {
        continue;
      }
      if (target >= 0) {
        unschedule(target);
        enqueue(affected, target);
      } else {
        int p = Watchdog.pointOf(target);
        watchdog.fired(p);
        watchdog
            .age(p, t)
            .ifPresent(
                tr -> {
                  emit(out, tr, p);
                  if (readers[p].length > 0) {
                    stepUpdates.add(p, fromTransition(tr, t, false));
                  }
                });
        watchdog.schedule(p, t);
      }
    }
    for (int k = 0; k < stepUpdates.touchedCount(); k++) {
      for (int d : readers[stepUpdates.touched(k)]) {
        enqueue(affected, d);
      }
    }
    while (!affected.isEmpty()) {
      int d = affected.poll();
      queued[d] = false;
      Transition tr = settle(d, t);
      if (tr != null) {
        emit(out, tr, pointOf[d]);
        stepUpdates.add(pointOf[d], fromTransition(tr, t, true));
        for (int reader : readers[pointOf[d]]) {
          enqueue(affected, reader);
        }
      }
    }
    stepUpdates.clear();
    return out;
  }

  /**
   * The point (its position in the table) of the {@code k}-th transition that the last {@link
   * #step} returned.
   */
  public int stepPoint(int k) {
    return stepPoints[k];
  }

  private void emit(List<Transition> out, Transition tr, int p) {
    out.add(tr);
    if (stepPointCount == stepPoints.length) {
      stepPoints = Arrays.copyOf(stepPoints, stepPointCount * 2);
    }
    stepPoints[stepPointCount++] = p;
  }

  /** A derived point's change is an observation; the watchdog's quality change is not. */
  private static Update fromTransition(Transition tr, Instant t, boolean observed) {
    return new Update(
        0, tr.current().value(), tr.current().quality(), tr.valueChanged(), observed, t);
  }

  private void enqueue(IntHeap affected, int d) {
    if (!queued[d]) {
      queued[d] = true;
      affected.add(d);
    }
  }

  /** The point's kind steps over its inputs' updates; returns the transition it caused, or null. */
  private Transition settle(int d, Instant t) {
    List<Update> updates = settleUpdates;
    stepUpdates.gather(inputsOf[d], updates);
    Out result = states[d].step(t, updates, contexts[d]);
    scheduleState(d);
    if (result == null) {
      return null;
    }
    return points.applyOrNull(pointOf[d], result.value(), result.quality(), t);
  }

  private KindState.Context context(int d) {
    return new KindState.Context() {
      @Override
      public PointState input(int i) {
        return points.state(inputsOf[d][i]);
      }

      @Override
      public double number(int i) {
        return points.number(inputsOf[d][i]);
      }

      @Override
      public Quality quality() {
        // A derived point is as good as its worst input.
        Quality worst = Quality.LIVE;
        for (int input : inputsOf[d]) {
          worst = Quality.worse(worst, points.quality(input));
        }
        return worst;
      }

      @Override
      public long fire(Instant at) {
        seq[d]++;
        firings.add(Firing.of(derived[d].id(), generation[d], seq[d], at));
        return seq[d];
      }

      @Override
      public long seq() {
        return seq[d];
      }
    };
  }

  /**
   * A new timer only when the due instant moved: the pending one is still good otherwise. A state
   * with no due instant has no pending timer (its entry, if any, is left stale).
   */
  private void scheduleState(int d) {
    Instant due = states[d].due;
    if (due == null) {
      unschedule(d);
    } else if (due.getEpochSecond() != scheduledSecond[d] || due.getNano() != scheduledNano[d]) {
      timers.add(due, d);
      scheduledSecond[d] = due.getEpochSecond();
      scheduledNano[d] = due.getNano();
    }
  }

  private void unschedule(int d) {
    scheduledSecond[d] = Long.MIN_VALUE;
  }

  /** Every derived point's state as JSON: hash, generation, firing sequence and kind state. */
  public String snapshot() {
    Map<String, Object> all = new LinkedHashMap<>();
    for (int d = 0; d < derived.length; d++) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("hash", derived[d].definitionHash());
      m.put("generation", generation[d]);
      m.put("seq", seq[d]);
      m.put("due", states[d].due == null ? null : states[d].due.toString());
      Map<String, Object> state = new LinkedHashMap<>();
      states[d].save(state);
      m.put("state", state);
      all.put(derived[d].id(), m);
    }
    try {
      return JSON.writeValueAsString(all);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("derived state is plain maps and lists", e);
    }
  }

  /**
   * Takes back a snapshot. A point whose definition hash changed starts afresh in a new generation,
   * so its firing ids never repeat; points the snapshot lacks keep a fresh state.
   */
  @SuppressWarnings("unchecked")
  public void restore(String json) {
    Map<String, Object> all;
    try {
      all = JSON.readValue(json, Map.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not a derived-state snapshot: " + e.getOriginalMessage(), e);
    }
    for (int d = 0; d < derived.length; d++) {
      Map<String, Object> m = (Map<String, Object>) all.get(derived[d].id());
      if (m == null) {
        continue;
      }
      long savedGeneration = ((Number) m.get("generation")).longValue();
      if (!derived[d].definitionHash().equals(m.get("hash"))) {
        generation[d] = savedGeneration + 1;
        seq[d] = 0;
        continue;
      }
      generation[d] = savedGeneration;
      seq[d] = ((Number) m.get("seq")).longValue();
      states[d].load(
          (Map<String, Object>) m.get("state"),
          inputsOf[d].length == 0 ? null : points.spec(inputsOf[d][0]).type());
      Object due = m.get("due");
      states[d].due = due == null ? null : Instant.parse((String) due);
      scheduleState(d);
    }
    // The watchdog keeps no state of its own: it is rebuilt from the points' last samples.
    lagEnded(lag.now());
  }
}
