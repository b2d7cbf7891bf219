package io.sentinel.derived;

import io.sentinel.expr.Condition;
import java.time.Duration;
import java.util.List;

/**
 * What a derived point computes. Every kind is an ordinary point to rules: a value and a quality
 * that follows its inputs' quality. docs/derived.md gives an example of each.
 */
public sealed interface DerivedKind {
  String name();

  /** bool: true above {@code onAbove}, false below {@code offBelow}, unchanged in between. */
  record Hysteresis(double onAbove, double offBelow) implements DerivedKind {
    public String name() {
      return "hysteresis";
    }
  }

  /** The input's value once it has held for {@code stableFor}. */
  record Debounce(Duration stableFor) implements DerivedKind {
    public String name() {
      return "debounce";
    }
  }

  /** number: the mean of the input's samples within the last {@code window} (half-open). */
  record RollingAvg(Duration window) implements DerivedKind {
    public String name() {
      return "rolling_avg";
    }
  }

  /** number: change per second between the first and last sample within the last {@code window}. */
  record Rate(Duration window) implements DerivedKind {
    public String name() {
      return "rate";
    }
  }

  /** number (s): time since the input's last sample, updated every {@code every}. */
  record Age(Duration every) implements DerivedKind {
    public String name() {
      return "age";
    }
  }

  /**
   * number: the firing sequence. Fires when {@code atLeast} matching envelopes fall within {@code
   * within}; a firing consumes what it counted.
   */
  record Count(Condition when, int atLeast, Duration within) implements DerivedKind {
    public String name() {
      return "count";
    }
  }

  /**
   * number: the firing sequence. Fires when envelopes match the steps in order within {@code
   * within} of the first; a new first step while waiting restarts the wait.
   */
  record Sequence(List<Step> steps, Duration within) implements DerivedKind {
    public Sequence {
      steps = List.copyOf(steps);
    }

    public String name() {
      return "sequence";
    }
  }

  /** One step of a sequence: a condition on one of the derived point's inputs. */
  record Step(int input, Condition when) {}

  /**
   * bool: true once no matching state has been seen for {@code within}; false at the next match.
   */
  record Absence(Condition when, Duration within) implements DerivedKind {
    public String name() {
      return "absence";
    }
  }

  /**
   * number: the firing sequence; an envelope passes unless its value passed within {@code within}.
   */
  record Dedupe(Duration within) implements DerivedKind {
    public String name() {
      return "dedupe";
    }
  }

  /** number: the firing sequence; at most {@code atMost} envelopes pass per {@code per}. */
  record Throttle(int atMost, Duration per) implements DerivedKind {
    public String name() {
      return "throttle";
    }
  }

  /**
   * bool: whether the site's local time of day lies in [{@code from}, {@code to}) (across midnight
   * when {@code to} is before {@code from}); reads no point, follows daylight-saving changes.
   */
  record TimeWindow(java.time.LocalTime from, java.time.LocalTime to, java.time.ZoneId zone)
      implements DerivedKind {
    public String name() {
      return "time_of_day";
    }

    public boolean contains(java.time.LocalTime t) {
      return from.isBefore(to) || from.equals(to)
          ? !t.isBefore(from) && t.isBefore(to)
          : !t.isBefore(from) || t.isBefore(to);
    }
  }
}
