package io.sentinel.rule;

import io.sentinel.point.Quality;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** When a rule evaluates. What it decides is {@code when}'s business. */
public sealed interface Trigger {
  /** Any transition (a value change past the deadband, or a quality change) of the inputs. */
  record OnTransition(List<String> of) implements Trigger {
    public OnTransition {
      of = List.copyOf(of);
    }
  }

  /** A value crossing in one direction; defined on the changed flag, so it respects deadband. */
  record OnEdge(String of, Edge edge) implements Trigger {}

  /** The input's quality changing to one of {@code to}. */
  record OnQuality(String of, Set<io.sentinel.point.Quality> to) implements Trigger {
    public OnQuality {
      to = Set.copyOf(to);
    }

    public boolean matches(Quality q) {
      return to.contains(q);
    }
  }

  /** Periodic re-evaluation, for conditions that depend on time rather than data. */
  record OnInterval(Duration every) implements Trigger {}

  enum Edge {
    RISING,
    FALLING
  }
}
