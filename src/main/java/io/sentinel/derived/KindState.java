package io.sentinel.derived;

import io.sentinel.expr.Condition;
import io.sentinel.point.PointState;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.Deque;
import java.util.HashMap;
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

    /** Input {@code i}'s number now, NaN when it holds none: read without its state. */
    double number(int i);

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
      return new SignalStates.HysteresisState(h);
    } else if (kind instanceof DerivedKind.Debounce d) {
      return new SignalStates.DebounceState(d);
    } else if (kind instanceof DerivedKind.RollingAvg r) {
      return new SignalStates.WindowState(r.window(), false);
    } else if (kind instanceof DerivedKind.Rate r) {
      return new SignalStates.WindowState(r.window(), true);
    } else if (kind instanceof DerivedKind.Age a) {
      return new SignalStates.AgeState(a);
    } else if (kind instanceof DerivedKind.Count c) {
      return new PatternStates.CountState(c);
    } else if (kind instanceof DerivedKind.Sequence s) {
      return new PatternStates.SequenceState(s);
    } else if (kind instanceof DerivedKind.Absence a) {
      return new PatternStates.AbsenceState(a, start);
    } else if (kind instanceof DerivedKind.Dedupe d) {
      return new PatternStates.DedupeState(d);
    } else if (kind instanceof DerivedKind.TimeWindow w) {
      return new PatternStates.TimeWindowState(w, start);
    }
    return new PatternStates.ThrottleState((DerivedKind.Throttle) kind);
  }

  static Map<String, Object> newMap() {
    return new HashMap<>();
  }
}
