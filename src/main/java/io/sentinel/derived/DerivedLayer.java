package io.sentinel.derived;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.derived.KindState.Out;
import io.sentinel.derived.KindState.Update;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import java.time.Duration;
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

  /** Quality from best to worst: a derived point is as good as its worst input. */
  private static final List<Quality> WORST_LAST =
      List.of(
          Quality.LIVE,
          Quality.STALE,
          Quality.RESTORED,
          Quality.UNKNOWN,
          Quality.UNAVAILABLE,
          Quality.BAD);

  /** {@link #WORST_LAST}'s positions by ordinal, so that a comparison is an array read. */
  private static final int[] BADNESS = new int[Quality.values().length];

  static {
    for (Quality q : Quality.values()) {
      BADNESS[q.ordinal()] = WORST_LAST.indexOf(q);
    }
  }

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
  private final Instant[] watchDue;

  /** Whether a point has stale_after or unavailable_after (the watchdog ignores the others). */
  private final boolean[] watched;

  /** The due instant of each derived point's pending timer, if any. */
  private final Instant[] scheduledDue;

  private final TimerHeap timers = new TimerHeap();
  private final List<Firing> firings = new ArrayList<>();

  /** One context per derived point, made once. */
  private final KindState.Context[] contexts;

  // Per-step scratch.
  /**
   * This step's updates, in the order they were made, each as of input 0 (a point that reads it
   * through another input gets a copy with its own input index). The updates of one point are a
   * chain: {@code firstUpdate[p]} and {@code lastUpdate[p]} hold the position + 1 of its first and
   * last (0: none this step), {@code nextUpdate} the position + 1 of the next one of the same
   * point. Plain int arrays, so that asking whether a point has updates reads no object of its own.
   */
  private final List<Update> stepUpdates = new ArrayList<>();

  private final int[] firstUpdate;
  private final int[] lastUpdate;
  private int[] nextUpdate = new int[64];

  /** The updates a settle hands its kind. */
  private final List<Update> settleUpdates = new ArrayList<>();

  /** The points with updates this step, {@code touchedCount} of them. */
  private int[] touchedPoints = new int[64];

  private int touchedCount;

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
    scheduledDue = new Instant[n];
    seq = new long[n];
    queued = new boolean[n];
    contexts = new KindState.Context[n];
    List<List<Integer>> readerLists = new ArrayList<>();
    for (int p = 0; p < points.size(); p++) {
      readerLists.add(new ArrayList<>());
    }
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
    watchDue = new Instant[points.size()];
    watched = new boolean[points.size()];
    for (int p = 0; p < points.size(); p++) {
      PointSpec spec = points.spec(p);
      watched[p] = spec.staleAfter().isPresent() || spec.unavailableAfter().isPresent();
    }
    firstUpdate = new int[points.size()];
    lastUpdate = new int[points.size()];
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
    while (!timers.isEmpty() && !live(timers.peekDue(), timers.peekTarget())) {
      timers.poll();
    }
    return timers.isEmpty() ? null : timers.peekDue();
  }

  /** Whether a timer is still the pending one of its target (a moved one leaves a stale entry). */
  private boolean live(Instant due, int target) {
    if (target >= 0) {
      return due.equals(states[target].due);
    }
    return due.equals(watchDue[-1 - target]);
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
    for (int p = 0; p < watchDue.length; p++) {
      watchDue[p] = null;
      scheduleWatch(p, t);
    }
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
        PointState now = points.state(p);
        addUpdate(
            p,
            new Update(
                0,
                s.value().isPresent() ? s.value() : now.value(),
                now.quality(),
                tr != null && tr.valueChanged(),
                true,
                t));
      }
      // A pending watchdog check is earlier than any this sample would set; only a change of
      // quality can make the point age sooner.
      if (watched[p] && (watchDue[p] == null || tr != null && tr.qualityChanged())) {
        scheduleWatch(p, t);
      }
    }
    IntHeap affected = this.affected;

    while (!timers.isEmpty() && !timers.peekDue().isAfter(t)) {
      Instant due = timers.peekDue();
      int target = timers.peekTarget();
      timers.poll();
      if (!live(due, target)) {
        continue;
      }
      if (target >= 0) {
        scheduledDue[target] = null;
        enqueue(affected, target);
      } else {
        int p = -1 - target;
        watchDue[p] = null;
        age(p, t)
            .ifPresent(
                tr -> {
                  emit(out, tr, p);
                  if (readers[p].length > 0) {
                    addUpdate(p, fromTransition(tr, t, false));
                  }
                });
        scheduleWatch(p, t);
      }
    }
    for (int k = 0; k < touchedCount; k++) {
      for (int d : readers[touchedPoints[k]]) {
        enqueue(affected, d);
      }
    }
    while (!affected.isEmpty()) {
      int d = affected.poll();
      queued[d] = false;
      Transition tr = settle(d, t);
      if (tr != null) {
        emit(out, tr, pointOf[d]);
        addUpdate(pointOf[d], fromTransition(tr, t, true));
        for (int reader : readers[pointOf[d]]) {
          enqueue(affected, reader);
        }
      }
    }
    for (int k = 0; k < touchedCount; k++) {
      firstUpdate[touchedPoints[k]] = 0;
      lastUpdate[touchedPoints[k]] = 0;
    }
    touchedCount = 0;
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

  private void addUpdate(int point, Update u) {
    stepUpdates.add(u);
    int pos = stepUpdates.size(); // position + 1
    if (pos > nextUpdate.length) {
      nextUpdate = Arrays.copyOf(nextUpdate, pos * 2);
    }
    nextUpdate[pos - 1] = 0;
    if (firstUpdate[point] == 0) {
      if (touchedCount == touchedPoints.length) {
        touchedPoints = Arrays.copyOf(touchedPoints, touchedCount * 2);
      }
      touchedPoints[touchedCount++] = point;
      firstUpdate[point] = pos;
    } else {
      nextUpdate[lastUpdate[point] - 1] = pos;
    }
    lastUpdate[point] = pos;
  }

  private void enqueue(IntHeap affected, int d) {
    if (!queued[d]) {
      queued[d] = true;
      affected.add(d);
    }
  }

  /** The point's kind steps over its inputs' updates; returns the transition it caused, or null. */
  private Transition settle(int d, Instant t) {
    int[] inputs = inputsOf[d];
    List<Update> updates = settleUpdates;
    updates.clear();
    for (int i = 0; i < inputs.length; i++) {
      for (int pos = firstUpdate[inputs[i]]; pos != 0; pos = nextUpdate[pos - 1]) {
        Update u = stepUpdates.get(pos - 1);
        updates.add(
            i == 0
                ? u
                : new Update(i, u.value(), u.quality(), u.valueChanged(), u.observed(), u.at()));
      }
    }
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
      public Quality quality() {
        Quality worst = Quality.LIVE;
        for (int input : inputsOf[d]) {
          Quality q = points.state(input).quality();
          if (BADNESS[q.ordinal()] > BADNESS[worst.ordinal()]) {
            worst = q;
          }
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

  /** A new timer only when the due instant moved: the pending one is still good otherwise. */
  private void scheduleState(int d) {
    Instant due = states[d].due;
    if (due != null && !due.equals(scheduledDue[d])) {
      timers.add(due, d);
      scheduledDue[d] = due;
    }
  }

  /**
   * Watched points are those with stale_after or unavailable_after. One timer is pending per point:
   * a later sample leaves an earlier timer in place (it re-checks and moves on), but a change that
   * makes the point age sooner (stale to live) brings the timer forward.
   */
  private void scheduleWatch(int p, Instant t) {
    if (!watched[p]) {
      return;
    }
    PointSpec spec = points.spec(p);
    Optional<Instant> last = points.lastSampleAt(p);
    if (spec.staleAfter().isEmpty() && spec.unavailableAfter().isEmpty() || last.isEmpty()) {
      return;
    }
    Quality q = points.state(p).quality();
    Optional<Duration> next =
        q == Quality.LIVE && spec.staleAfter().isPresent()
            ? spec.staleAfter()
            : q == Quality.LIVE || q == Quality.STALE ? spec.unavailableAfter() : Optional.empty();
    next.flatMap(d -> lag.whenElapsed(last.get(), d, t))
        .filter(due -> watchDue[p] == null || due.isBefore(watchDue[p]))
        .ifPresent(
            due -> {
              watchDue[p] = due;
              timers.add(due, -1 - p);
            });
  }

  /**
   * The watchdog: a point not sampled for its stale_after (of lag-free time) turns stale, and so
   * on.
   */
  private Optional<Transition> age(int p, Instant t) {
    PointSpec spec = points.spec(p);
    Optional<Instant> last = points.lastSampleAt(p);
    if (last.isEmpty()) {
      return Optional.empty();
    }
    Duration quiet = lag.effective(last.get(), t);
    Quality q = points.state(p).quality();
    Quality next = q;
    if ((q == Quality.LIVE || q == Quality.STALE)
        && spec.unavailableAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent()) {
      next = Quality.UNAVAILABLE;
    } else if (q == Quality.LIVE
        && spec.staleAfter().filter(d -> quiet.compareTo(d) >= 0).isPresent()) {
      next = Quality.STALE;
    }
    return next == q ? Optional.empty() : points.degrade(p, next, t);
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
