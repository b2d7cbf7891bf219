package io.sentinel.derived;

import io.sentinel.expr.Condition;
import io.sentinel.point.PointState;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The memory of one derived point, by kind. A step gets the instant, this step's updates of the
 * point's inputs (none when only its timer is due), and returns the value and quality the point
 * should now have, or null to leave it. Windows are half-open: what happened exactly {@code within}
 * ago is out of the window.
 */
abstract class KindState {
  /** One observation of an input in this step: a sample of a raw point, or a derived transition. */
  record Update(
      int input, Value value, Quality quality, boolean valueChanged, boolean observed, Instant at) {
    PointState state() {
      return new PointState(value, quality, at);
    }

    /** An event for the patterns: a live value that changed. */
    boolean isEnvelope() {
      return valueChanged && quality == Quality.LIVE;
    }
  }

  record Out(Value value, Quality quality) {}

  /** What a state may ask of the layer. */
  interface Context {
    /** The current state of input {@code i} of this point. */
    PointState input(int i);

    /** The worst quality among the inputs: the derived point's own quality. */
    Quality quality();

    /** Records a firing and returns its sequence number. */
    long fire(Instant at);

    long seq();
  }

  /** When the state next needs a step without input, or null. */
  Instant due;

  abstract Out step(Instant t, List<Update> updates, Context ctx);

  abstract void save(Map<String, Object> m);

  abstract void load(Map<String, Object> m, PointType inputType);

  static boolean matches(Condition when, PointState state) {
    return when.test(slot -> state);
  }

  /** Half-open windows: what happened exactly at the horizon is out. */
  static void dropUpTo(Deque<Instant> q, Instant horizon) {
    while (!q.isEmpty() && !q.peekFirst().isAfter(horizon)) {
      q.removeFirst();
    }
  }

  static List<String> texts(Deque<Instant> q) {
    return q.stream().map(Instant::toString).toList();
  }

  @SuppressWarnings("unchecked")
  static void readInto(Deque<Instant> q, Object saved) {
    q.clear();
    if (saved != null) {
      ((List<String>) saved).forEach(s -> q.addLast(Instant.parse(s)));
    }
  }

  static Instant instant(Object o) {
    return o == null ? null : Instant.parse((String) o);
  }

  static String text(Instant t) {
    return t == null ? null : t.toString();
  }

  static Value value(Object plain, PointType type) {
    if (plain == null) {
      return Value.ABSENT;
    }
    if (type instanceof PointType.Bool) {
      return Value.of((Boolean) plain);
    }
    if (type instanceof PointType.Number) {
      return Value.of(((Number) plain).doubleValue());
    }
    return Value.of((String) plain);
  }

  static KindState of(DerivedKind kind, Instant start) {
    if (kind instanceof DerivedKind.Hysteresis h) {
      return new HysteresisState(h);
    } else if (kind instanceof DerivedKind.Debounce d) {
      return new DebounceState(d);
    } else if (kind instanceof DerivedKind.RollingAvg r) {
      return new WindowState(r.window(), false);
    } else if (kind instanceof DerivedKind.Rate r) {
      return new WindowState(r.window(), true);
    } else if (kind instanceof DerivedKind.Age a) {
      return new AgeState(a);
    } else if (kind instanceof DerivedKind.Count c) {
      return new CountState(c);
    } else if (kind instanceof DerivedKind.Sequence s) {
      return new SequenceState(s);
    } else if (kind instanceof DerivedKind.Absence a) {
      return new AbsenceState(a, start);
    } else if (kind instanceof DerivedKind.Dedupe d) {
      return new DedupeState(d);
    } else if (kind instanceof DerivedKind.TimeWindow w) {
      return new TimeWindowState(w, start);
    }
    return new ThrottleState((DerivedKind.Throttle) kind);
  }

  /** Hysteresis: off below, on above, unchanged in between; off until first known. */
  static final class HysteresisState extends KindState {
    private final DerivedKind.Hysteresis spec;
    private Boolean on;

    HysteresisState(DerivedKind.Hysteresis spec) {
      this.spec = spec;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      if (ctx.input(0).value() instanceof Value.Num n) {
        if (n.value() > spec.onAbove()) {
          on = true;
        } else if (n.value() < spec.offBelow()) {
          on = false;
        } else if (on == null) {
          on = false;
        }
      }
      return new Out(on == null ? Value.ABSENT : Value.of(on), ctx.quality());
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("on", on);
    }

    @Override
    void load(Map<String, Object> m, PointType inputType) {
      on = (Boolean) m.get("on");
    }
  }

  /** Debounce: a new value becomes the output once it has held for stable_for. */
  static final class DebounceState extends KindState {
    private final Duration stableFor;
    private Value pending = Value.ABSENT;
    private Value stable = Value.ABSENT;

    DebounceState(DerivedKind.Debounce spec) {
      this.stableFor = spec.stableFor();
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      // What held for exactly stable_for counts before a change at the same instant.
      if (due != null && !t.isBefore(due)) {
        stable = pending;
        pending = Value.ABSENT;
        due = null;
      }
      for (Update u : updates) {
        if (u.valueChanged() && u.value().isPresent()) {
          if (u.value().equals(stable)) {
            pending = Value.ABSENT;
            due = null;
          } else {
            pending = u.value();
            due = u.at().plus(stableFor);
          }
        }
      }
      return new Out(stable, stable.isPresent() ? ctx.quality() : Quality.UNKNOWN);
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("pending", pending.toPlain());
      m.put("stable", stable.toPlain());
      m.put("due", text(due));
    }

    @Override
    void load(Map<String, Object> m, PointType inputType) {
      pending = value(m.get("pending"), inputType);
      stable = value(m.get("stable"), inputType);
      due = instant(m.get("due"));
    }
  }

  /** rolling_avg and rate: the live samples within the window. */
  static final class WindowState extends KindState {
    private final Duration window;
    private final boolean rate;
    // The live samples in the window, oldest first: a ring of epoch millis and values.
    private long[] millis = new long[8];
    private double[] values = new double[8];
    private int head;
    private int size;

    /**
     * The running sum of the window's values. It is part of the saved state, so a restored window
     * adds and subtracts exactly as one that never stopped (a recomputed sum could differ in its
     * last bits, and batching must never change a value).
     */
    private double sum;

    WindowState(Duration window, boolean rate) {
      this.window = window;
      this.rate = rate;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (u.quality() == Quality.LIVE && u.value() instanceof Value.Num n) {
          add(u.at().toEpochMilli(), n.value());
          sum += n.value();
        }
      }
      long horizon = t.minus(window).toEpochMilli();
      while (size > 0 && millis[head] <= horizon) {
        sum -= values[head];
        head = (head + 1) & (millis.length - 1);
        size--;
      }
      if (size == 0) {
        sum = 0;
        head = 0;
      }
      due = size == 0 ? null : Instant.ofEpochMilli(millis[head]).plus(window);
      if (rate) {
        int last = (head + size - 1) & (millis.length - 1);
        if (size < 2 || millis[last] == millis[head]) {
          return new Out(Value.ABSENT, size == 0 ? Quality.UNAVAILABLE : ctx.quality());
        }
        double seconds = (millis[last] - millis[head]) / 1000.0;
        return new Out(Value.of((values[last] - values[head]) / seconds), ctx.quality());
      }
      if (size == 0) {
        return new Out(Value.ABSENT, Quality.UNAVAILABLE);
      }
      return new Out(Value.of(sum / size), ctx.quality());
    }

    /** Appends a sample, doubling the ring when full (capacity stays a power of two). */
    private void add(long at, double value) {
      if (size == millis.length) {
        long[] m = new long[size * 2];
        double[] v = new double[size * 2];
        for (int k = 0; k < size; k++) {
          m[k] = millis[(head + k) & (size - 1)];
          v[k] = values[(head + k) & (size - 1)];
        }
        millis = m;
        values = v;
        head = 0;
      }
      int slot = (head + size) & (millis.length - 1);
      millis[slot] = at;
      values[slot] = value;
      size++;
    }

    @Override
    void save(Map<String, Object> m) {
      List<List<Double>> list = new ArrayList<>();
      for (int k = 0; k < size; k++) {
        int slot = (head + k) & (millis.length - 1);
        list.add(List.of((double) millis[slot], values[slot]));
      }
      m.put("samples", list);
      m.put("sum", sum);
      m.put("due", text(due));
    }

    @Override
    @SuppressWarnings("unchecked")
    void load(Map<String, Object> m, PointType inputType) {
      head = 0;
      size = 0;
      for (List<Number> s : (List<List<Number>>) m.getOrDefault("samples", List.of())) {
        add((long) s.get(0).doubleValue(), s.get(1).doubleValue());
      }
      sum = ((Number) m.getOrDefault("sum", 0.0)).doubleValue();
      due = instant(m.get("due"));
    }
  }

  /** age: seconds since the input's last sample, in steps of {@code every}. */
  static final class AgeState extends KindState {
    private final Duration every;
    private Instant lastSample;

    AgeState(DerivedKind.Age spec) {
      this.every = spec.every();
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (u.observed()) {
          lastSample = u.at();
        }
      }
      if (lastSample == null) {
        return new Out(Value.ABSENT, Quality.UNKNOWN);
      }
      long steps = Duration.between(lastSample, t).toMillis() / every.toMillis();
      due = lastSample.plus(every.multipliedBy(steps + 1));
      return new Out(Value.of(every.multipliedBy(steps).toMillis() / 1000.0), Quality.LIVE);
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("last_sample", text(lastSample));
    }

    @Override
    void load(Map<String, Object> m, PointType inputType) {
      lastSample = instant(m.get("last_sample"));
      due = lastSample == null ? null : lastSample.plus(every);
    }
  }

  /** count: at_least matching envelopes within the window; a firing consumes them. */
  static final class CountState extends KindState {
    private final DerivedKind.Count spec;
    private final Deque<Instant> counted = new ArrayDeque<>();

    CountState(DerivedKind.Count spec) {
      this.spec = spec;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (!u.isEnvelope() || !matches(spec.when(), u.state())) {
          continue;
        }
        dropUpTo(counted, u.at().minus(spec.within()));
        counted.addLast(u.at());
        if (counted.size() >= spec.atLeast()) {
          counted.clear();
          ctx.fire(u.at());
        }
      }
      return new Out(Value.of(ctx.seq()), ctx.quality());
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("counted", texts(counted));
    }

    @Override
    @SuppressWarnings("unchecked")
    void load(Map<String, Object> m, PointType inputType) {
      readInto(counted, m.get("counted"));
    }
  }

  /** sequence: the steps in order within the window; a new first step restarts the wait. */
  static final class SequenceState extends KindState {
    private final DerivedKind.Sequence spec;
    private int next;
    private Instant started;

    SequenceState(DerivedKind.Sequence spec) {
      this.spec = spec;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (!u.isEnvelope()) {
          continue;
        }
        if (next > 0 && !u.at().isBefore(started.plus(spec.within()))) {
          next = 0; // the wait ran out: exactly within after the start is too late
        }
        if (next > 0 && stepMatches(spec.steps().get(next), u)) {
          next++;
        } else if (stepMatches(spec.steps().get(0), u)) {
          next = 1;
          started = u.at();
        }
        if (next == spec.steps().size()) {
          next = 0;
          started = null;
          ctx.fire(u.at());
        }
      }
      return new Out(Value.of(ctx.seq()), ctx.quality());
    }

    private static boolean stepMatches(DerivedKind.Step step, Update u) {
      return step.input() == u.input() && matches(step.when(), u.state());
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("next", next);
      m.put("started", text(started));
    }

    @Override
    void load(Map<String, Object> m, PointType inputType) {
      next = ((Number) m.getOrDefault("next", 0)).intValue();
      started = instant(m.get("started"));
    }
  }

  /** absence: true once nothing matched for the window; once per quiet period. */
  static final class AbsenceState extends KindState {
    private final DerivedKind.Absence spec;
    private Instant quietSince;
    private boolean fired;

    AbsenceState(DerivedKind.Absence spec, Instant start) {
      this.spec = spec;
      this.quietSince = start;
      this.due = start.plus(spec.within());
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      // The firing at exactly `within` comes before a match at the same instant (half-open).
      if (!fired && quietSince != null && !t.isBefore(quietSince.plus(spec.within()))) {
        fired = true;
        ctx.fire(quietSince.plus(spec.within()));
      }
      if (!updates.isEmpty()) {
        PointState now = ctx.input(0);
        if (now.value().isPresent() && matches(spec.when(), now)) {
          quietSince = null;
          fired = false;
        } else if (quietSince == null) {
          quietSince = t;
        }
      }
      due = quietSince != null && !fired ? quietSince.plus(spec.within()) : null;
      return new Out(Value.of(fired), ctx.quality());
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("quiet_since", text(quietSince));
      m.put("fired", fired);
    }

    @Override
    void load(Map<String, Object> m, PointType inputType) {
      quietSince = instant(m.get("quiet_since"));
      fired = Boolean.TRUE.equals(m.get("fired"));
      due = quietSince != null && !fired ? quietSince.plus(spec.within()) : null;
    }
  }

  /** dedupe: an envelope passes unless the same value passed within the window. */
  static final class DedupeState extends KindState {
    private final Duration within;
    private final Map<String, Instant> passed = new LinkedHashMap<>();

    DedupeState(DerivedKind.Dedupe spec) {
      this.within = spec.within();
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (!u.isEnvelope()) {
          continue;
        }
        Instant horizon = u.at().minus(within);
        // Entries are in the order they passed, which is the order of their instants: the
        // expired ones are a prefix.
        Iterator<Instant> oldest = passed.values().iterator();
        while (oldest.hasNext() && !oldest.next().isAfter(horizon)) {
          oldest.remove();
        }
        String key = u.value().toString();
        if (!passed.containsKey(key)) {
          passed.put(key, u.at());
          ctx.fire(u.at());
        }
      }
      return new Out(Value.of(ctx.seq()), ctx.quality());
    }

    @Override
    void save(Map<String, Object> m) {
      Map<String, String> p = new LinkedHashMap<>();
      passed.forEach((k, v) -> p.put(k, v.toString()));
      m.put("passed", p);
    }

    @Override
    @SuppressWarnings("unchecked")
    void load(Map<String, Object> m, PointType inputType) {
      passed.clear();
      ((Map<String, String>) m.getOrDefault("passed", Map.of()))
          .forEach((k, v) -> passed.put(k, Instant.parse(v)));
    }
  }

  /** throttle: at most at_most envelopes pass per window. */
  static final class ThrottleState extends KindState {
    private final DerivedKind.Throttle spec;
    private final Deque<Instant> passed = new ArrayDeque<>();

    ThrottleState(DerivedKind.Throttle spec) {
      this.spec = spec;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (!u.isEnvelope()) {
          continue;
        }
        dropUpTo(passed, u.at().minus(spec.per()));
        if (passed.size() < spec.atMost()) {
          passed.addLast(u.at());
          ctx.fire(u.at());
        }
      }
      return new Out(Value.of(ctx.seq()), ctx.quality());
    }

    @Override
    void save(Map<String, Object> m) {
      m.put("passed", texts(passed));
    }

    @Override
    @SuppressWarnings("unchecked")
    void load(Map<String, Object> m, PointType inputType) {
      readInto(passed, m.get("passed"));
    }
  }

  /** time_of_day: true inside the window of local time; re-checked at every boundary. */
  static final class TimeWindowState extends KindState {
    private final DerivedKind.TimeWindow spec;

    TimeWindowState(DerivedKind.TimeWindow spec, Instant start) {
      this.spec = spec;
      this.due = start;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      java.time.ZonedDateTime local = t.atZone(spec.zone());
      due = nextBoundary(t);
      return new Out(Value.of(spec.contains(local.toLocalTime())), Quality.LIVE);
    }

    /**
     * The next instant the answer may change: a window edge today or tomorrow (both occurrences of
     * a local time repeated when clocks go back), or a change of the zone's offset (a local time
     * skipped when clocks go forward).
     */
    private Instant nextBoundary(Instant t) {
      Instant best = t.plus(Duration.ofDays(2));
      java.time.LocalDate today = t.atZone(spec.zone()).toLocalDate();
      for (java.time.LocalDate d : List.of(today.minusDays(1), today, today.plusDays(1))) {
        for (java.time.LocalTime edge : List.of(spec.from(), spec.to())) {
          java.time.ZonedDateTime z = java.time.ZonedDateTime.of(d, edge, spec.zone());
          for (Instant candidate :
              List.of(
                  z.withEarlierOffsetAtOverlap().toInstant(),
                  z.withLaterOffsetAtOverlap().toInstant())) {
            if (candidate.isAfter(t) && candidate.isBefore(best)) {
              best = candidate;
            }
          }
        }
      }
      java.time.zone.ZoneOffsetTransition shift = spec.zone().getRules().nextTransition(t);
      if (shift != null && shift.getInstant().isBefore(best)) {
        best = shift.getInstant();
      }
      return best;
    }

    @Override
    void save(Map<String, Object> m) {}

    @Override
    void load(Map<String, Object> m, PointType inputType) {}
  }

  static Map<String, Object> newMap() {
    return new HashMap<>();
  }
}
