package io.sentinel.point;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The current state of every registered point, and the one place where samples become transitions.
 * Indexed by position so that the engine's hot path reads arrays, not maps.
 */
public final class PointTable {
  private final PointSpec[] specs;
  private final PointState[] states;

  /**
   * Of each point, {@link #STRIDE} longs side by side, so that what a pass reads of a point lies in
   * one stretch of memory rather than in the several objects of its state (the state, its value,
   * its instant) and the arrays beside them: its range's bounds and deadband (a double's bits; the
   * first NaN for a point of another type), and mirrors of {@code states[i]} kept by {@link #put}:
   * its number (NaN for none), quality, and since in epoch nanos, with its last sample and whether
   * it was live since start. The state object stays the one source of truth; these are read on the
   * hot path (docs/benchmarks.md, session 11).
   */
  private final long[] hot;

  private static final int STRIDE = 8;
  private static final int MIN = 0;
  private static final int MAX = 1;
  private static final int DEADBAND = 2;
  private static final int NUMBER = 3;
  private static final int SINCE = 4;
  private static final int LAST_SAMPLE = 5;
  private static final int QUALITY = 6;

  /** Bit 0: live since start; bit 1: the value is a bool; bit 2: that bool; bit 3: a bool point. */
  private static final int FLAGS = 7;

  private static final long LIVE_SINCE_START = 1;
  private static final long IS_BOOL = 2;
  private static final long BOOL_TRUE = 4;
  private static final long BOOL_POINT = 8;
  private static final Quality[] QUALITIES = Quality.values();

  /**
   * The last sample of a point whose instant the epoch nanos cannot hold (past 2262, before 1677),
   * as it was; made on the first such sample.
   */
  private Instant[] lastSampleBeyond;

  /** {@link #lastSampleNanos} of a point never sampled. */
  public static final long NO_SAMPLE = Long.MIN_VALUE;

  /** False while ingest lags: a drained sample is a value, not a sign the point is live now. */
  private boolean countLive = true;

  /**
   * Point id to position, open addressing with linear probing: a slot is one long, the id's hash in
   * the high half and position + 1 in the low one (0: empty), so a probe reads one array element,
   * and a hit then compares the id of that position (by identity first: the ingest hands over the
   * registry's own id strings). At most half full.
   */
  private final long[] slots;

  /** The point ids by position (the specs' own strings). */
  private final String[] ids;

  private final int slotMask;
  private final int slotShift;

  public PointTable(Registry registry, Instant start) {
    List<PointSpec> all = registry.inOrder();
    specs = all.toArray(PointSpec[]::new);
    states = new PointState[specs.length];
    hot = new long[STRIDE * specs.length];
    int size = Integer.highestOneBit(Math.max(2, specs.length) * 2) * 2;
    slots = new long[size];
    ids = new String[specs.length];
    slotMask = size - 1;
    slotShift = Integer.numberOfLeadingZeros(size) + 1;
    for (int i = 0; i < specs.length; i++) {
      ids[i] = specs[i].id();
      int h = ids[i].hashCode();
      int s = home(h);
      while (slots[s] != 0) {
        s = (s + 1) & slotMask;
      }
      slots[s] = ((long) h << 32) | (i + 1);
      PointSpec spec = specs[i];
      int b = STRIDE * i;
      boolean number = spec.type() instanceof PointType.Number;
      hot[b + MIN] =
          bits(
              !number
                  ? Double.NaN
                  : spec.range().map(PointSpec.Range::min).orElse(Double.NEGATIVE_INFINITY));
      hot[b + MAX] = bits(spec.range().map(PointSpec.Range::max).orElse(Double.POSITIVE_INFINITY));
      hot[b + DEADBAND] = bits(spec.deadband());
      hot[b + LAST_SAMPLE] = NO_SAMPLE;
      hot[b + FLAGS] = spec.type() instanceof PointType.Bool ? BOOL_POINT : 0;
      put(i, PointState.unknown(start));
    }
  }

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  private double doubleAt(int i, int field) {
    return Double.longBitsToDouble(hot[STRIDE * i + field]);
  }

  /** Sets a point's state and its mirrors in {@link #hot}: every write of a state comes here. */
  private void put(int i, PointState state) {
    states[i] = state;
    int b = STRIDE * i;
    Value v = state.value();
    hot[b + NUMBER] = bits(v.number());
    hot[b + SINCE] = EpochNanos.of(state.since());
    hot[b + QUALITY] = state.quality().ordinal();
    long flags = hot[b + FLAGS] & (LIVE_SINCE_START | BOOL_POINT);
    int truth = v.truth();
    if (truth >= 0) {
      flags |= truth == 1 ? IS_BOOL | BOOL_TRUE : IS_BOOL;
    }
    hot[b + FLAGS] = flags;
  }

  public int size() {
    return specs.length;
  }

  /** The position of a point, or -1 when the registry does not have it. */
  public int indexOf(String pointId) {
    int h = pointId.hashCode();
    for (int s = home(h); ; s = (s + 1) & slotMask) {
      long slot = slots[s];
      int position = (int) slot;
      if (position == 0) {
        return -1;
      }
      if ((int) (slot >>> 32) == h) {
        String id = ids[position - 1];
        if (id == pointId || id.equals(pointId)) {
          return position - 1;
        }
      }
    }
  }

  /**
   * The position of a sample's point, or -1: its position hint when that is this table's position
   * of the same id (the decoder's registry is this table's: the same id string), else {@link
   * #indexOf(String)}.
   */
  public int indexOf(Sample sample) {
    int p = sample.position();
    String id = sample.pointId();
    if (p >= 0 && p < ids.length && ids[p] == id) {
      return p;
    }
    return indexOf(id);
  }

  /** Fibonacci hashing: the top bits of the product, so that neighbouring hashes spread out. */
  private int home(int h) {
    return (h * 0x9E3779B9) >>> slotShift;
  }

  public PointSpec spec(int i) {
    return specs[i];
  }

  public PointState state(int i) {
    return states[i];
  }

  /** The point's number now, NaN when its value is no number: {@code state(i)}'s, without it. */
  public double number(int i) {
    return doubleAt(i, NUMBER);
  }

  /** The point's quality now: {@code state(i).quality()}, without the state. */
  public Quality quality(int i) {
    return QUALITIES[(int) hot[STRIDE * i + QUALITY]];
  }

  /** 1 when the point's value is true, 0 when false, -1 when it is no bool. */
  public int truth(int i) {
    long flags = hot[STRIDE * i + FLAGS];
    return (flags & IS_BOOL) == 0 ? -1 : (flags & BOOL_TRUE) != 0 ? 1 : 0;
  }

  /**
   * {@code state(i).since()} in epoch nanos, saturated past 2262 and before 1677 ({@link
   * EpochNanos#exact} tells).
   */
  public long sinceNanos(int i) {
    return hot[STRIDE * i + SINCE];
  }

  public Optional<PointState> state(String pointId) {
    int i = indexOf(pointId);
    return i < 0 ? Optional.empty() : Optional.of(states[i]);
  }

  /** Whether the point has been live at least once since the core started (warmup needs it). */
  public boolean liveSinceStart(int i) {
    return (hot[STRIDE * i + FLAGS] & LIVE_SINCE_START) != 0;
  }

  private void markLiveSinceStart(int i, boolean live) {
    int f = STRIDE * i + FLAGS;
    hot[f] = live ? hot[f] | LIVE_SINCE_START : hot[f] & ~LIVE_SINCE_START;
  }

  /**
   * Whether a live sample applied from now on counts as the point's having been live since start
   * (docs/live.md): not while ingest lags, so a backlog drained after an outage updates values
   * without letting a rule out of warmup.
   */
  public void countLiveSinceStart(boolean count) {
    countLive = count;
  }

  /** Treats every point as live since start: a fixture that begins with a running core. */
  public void markAllLiveSinceStart() {
    for (int i = 0; i < specs.length; i++) {
      markLiveSinceStart(i, true);
    }
  }

  /** The point's last sample in epoch nanos, or {@link #NO_SAMPLE}. */
  public long lastSampleNanos(int i) {
    return hot[STRIDE * i + LAST_SAMPLE];
  }

  public Optional<Instant> lastSampleAt(int i) {
    long at = lastSampleNanos(i);
    if (at == NO_SAMPLE) {
      return Optional.empty();
    }
    return Optional.of(EpochNanos.exact(at) ? EpochNanos.instant(at) : lastSampleBeyond[i]);
  }

  private void recordSample(int i, Instant at) {
    long nanos = EpochNanos.of(at);
    hot[STRIDE * i + LAST_SAMPLE] = nanos;
    if (!EpochNanos.exact(nanos)) {
      beyond()[i] = at;
    }
  }

  private Instant[] beyond() {
    if (lastSampleBeyond == null) {
      lastSampleBeyond = new Instant[specs.length];
    }
    return lastSampleBeyond;
  }

  /**
   * Takes over the state of the points of {@code previous} that {@code keep} names and this table
   * also has (a new rule set over the same points, docs/revisions.md): value, quality, since, and
   * whether they were live since start. The others stay unknown.
   */
  public void takeOver(PointTable previous, java.util.function.Predicate<String> keep) {
    for (int i = 0; i < specs.length; i++) {
      int j = previous.indexOf(specs[i].id());
      if (j >= 0 && keep.test(specs[i].id())) {
        put(i, previous.states[j]);
        markLiveSinceStart(i, previous.liveSinceStart(j));
        hot[STRIDE * i + LAST_SAMPLE] = previous.lastSampleNanos(j);
        if (!EpochNanos.exact(lastSampleNanos(i))) {
          beyond()[i] = previous.lastSampleBeyond[j];
        }
      }
    }
  }

  /** Puts back a value kept from before a restart, with quality restored; never a transition. */
  public void restore(String pointId, Value value, Instant at) {
    int i = requireIndex(pointId);
    put(i, new PointState(value, Quality.RESTORED, at));
  }

  /**
   * Applies a sample. A value outside the registry's range is kept with quality bad. A numeric
   * value that moved less than the deadband keeps the previous value, so slow drift is measured
   * against the last reported value rather than lost step by step.
   */
  public Optional<Transition> apply(Sample sample) {
    int i = indexOf(sample);
    if (i < 0) {
      throw new IllegalArgumentException("unknown point " + sample.pointId());
    }
    return apply(i, sample);
  }

  /** {@link #apply(Sample)} for a caller that already knows the point's position. */
  public Optional<Transition> apply(int i, Sample sample) {
    return Optional.ofNullable(applyOrNull(i, sample.value(), sample.quality(), sample.at()));
  }

  /**
   * {@link #apply(int, Sample)} without the sample and the {@code Optional}: the transition, or
   * null for none. For the derived layer, which writes a value per settle.
   */
  public Transition applyOrNull(int i, Value value, Quality quality, Instant at) {
    double min = doubleAt(i, MIN);
    if (value instanceof Value.Num n && !Double.isNaN(min) && Double.isFinite(n.value())) {
      // A number point's number: the checks below, from the table's own copy of its spec, and the
      // previous number from its mirror (the state object is read only when there was none).
      double v = n.value();
      if (quality == Quality.LIVE && !(v >= min && v <= doubleAt(i, MAX))) {
        quality = Quality.BAD;
      }
      recordSample(i, at);
      double before = number(i);
      boolean valueChanged =
          !Double.isNaN(before)
              ? numberMoved(doubleAt(i, DEADBAND), Math.abs(v - before))
              : states[i].value() instanceof Value.Num p
                  ? numberMoved(doubleAt(i, DEADBAND), Math.abs(v - p.value()))
                  : !states[i].value().equals(value);
      return transitionOrNull(i, valueChanged, value, quality, at);
    }
    if (value instanceof Value.Bool b && (hot[STRIDE * i + FLAGS] & BOOL_POINT) != 0) {
      // A bool point's bool: accepted and in range; whether it changed, from the mirror.
      recordSample(i, at);
      return transitionOrNull(i, truth(i) != (b.value() ? 1 : 0), value, quality, at);
    }
    PointSpec spec = specs[i];
    if (value.isPresent() && !spec.type().accepts(value)) {
      throw new IllegalArgumentException(
          "point " + spec.id() + " is " + spec.type().name() + ", sample value is " + value);
    }
    if (value.isPresent() && quality == Quality.LIVE && !spec.inRange(value)) {
      quality = Quality.BAD;
    }
    recordSample(i, at);
    return transitionOrNull(i, valueChanged(spec, states[i].value(), value), value, quality, at);
  }

  /** The rest of {@link #applyOrNull} once the value's change is known. */
  private Transition transitionOrNull(
      int i, boolean valueChanged, Value value, Quality quality, Instant at) {
    boolean qualityChanged = quality(i) != quality;
    if (quality == Quality.LIVE && countLive) {
      markLiveSinceStart(i, true);
    }
    if (!valueChanged && !qualityChanged) {
      return null;
    }
    PointState previous = states[i];
    PointState current = new PointState(valueChanged ? value : previous.value(), quality, at);
    put(i, current);
    return new Transition(ids[i], previous, current, valueChanged, qualityChanged);
  }

  /**
   * The watchdog's quality change: the value stays, and no sample is recorded (the point's last
   * sample is still as old as it was).
   */
  public Optional<Transition> degrade(int i, Quality quality, Instant at) {
    PointState previous = states[i];
    if (previous.quality() == quality) {
      return Optional.empty();
    }
    PointState current = new PointState(previous.value(), quality, at);
    put(i, current);
    return Optional.of(new Transition(specs[i].id(), previous, current, false, true));
  }

  private static boolean valueChanged(PointSpec spec, Value previous, Value next) {
    if (!next.isPresent()) {
      return false; // a report of quality alone keeps the last value beside the new quality
    }
    if (previous instanceof Value.Num p && next instanceof Value.Num n) {
      return numberMoved(spec.deadband(), Math.abs(n.value() - p.value()));
    }
    return !previous.equals(next);
  }

  /** Whether a number moved by {@code delta} is a new value under {@code deadband}. */
  private static boolean numberMoved(double deadband, double delta) {
    return deadband > 0 ? delta >= deadband : delta != 0;
  }

  private int requireIndex(String pointId) {
    int i = indexOf(pointId);
    if (i < 0) {
      throw new IllegalArgumentException("unknown point " + pointId);
    }
    return i;
  }
}
