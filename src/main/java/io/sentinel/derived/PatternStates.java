package io.sentinel.derived;

import io.sentinel.point.PointState;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The states of the pattern kinds: count, sequence, absence, dedupe, throttle, time_of_day. */
final class PatternStates {
  private PatternStates() {}

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
}
