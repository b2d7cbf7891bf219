package io.sentinel.derived;

import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The states of the signal kinds: hysteresis, debounce, rolling_avg and rate, age. */
final class SignalStates {
  private SignalStates() {}

  /** Hysteresis: off below, on above, unchanged in between; off until first known. */
  static final class HysteresisState extends KindState {
    private final DerivedKind.Hysteresis spec;
    private Boolean on;

    HysteresisState(DerivedKind.Hysteresis spec) {
      this.spec = spec;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      double v = ctx.number(0);
      // NaN: no number, unless the input holds a NaN (then neither bound is crossed).
      if (!Double.isNaN(v) || ctx.input(0).value() instanceof Value.Num) {
        if (v > spec.onAbove()) {
          on = true;
        } else if (v < spec.offBelow()) {
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

    /**
     * The window in whole millis, or -1 when it has a fraction of one (then read as a Duration).
     */
    private final long windowMillis;

    /** The oldest sample's millis that {@link #due} was made from (it is kept while they stay). */
    private long dueFrom = Long.MIN_VALUE;

    WindowState(Duration window, boolean rate) {
      this.window = window;
      this.rate = rate;
      this.windowMillis = window.getNano() % 1_000_000 == 0 ? window.toMillis() : -1;
    }

    @Override
    Out step(Instant t, List<Update> updates, Context ctx) {
      for (Update u : updates) {
        if (u.quality() == Quality.LIVE && u.value() instanceof Value.Num n) {
          add(u.at().toEpochMilli(), n.value());
          sum += n.value();
        }
      }
      // t - window in millis, floored; of a window of whole millis, t's millis less the window's.
      long horizon =
          windowMillis >= 0 ? t.toEpochMilli() - windowMillis : t.minus(window).toEpochMilli();
      while (size > 0 && millis[head] <= horizon) {
        sum -= values[head];
        head = (head + 1) & (millis.length - 1);
        size--;
      }
      if (size == 0) {
        sum = 0;
        head = 0;
      }
      if (size == 0) {
        due = null;
      } else if (due == null || millis[head] != dueFrom) {
        dueFrom = millis[head];
        due = Instant.ofEpochMilli(dueFrom).plus(window);
      }
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
      dueFrom = Long.MIN_VALUE;
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
}
