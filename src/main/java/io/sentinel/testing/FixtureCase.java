package io.sentinel.testing;

import io.sentinel.engine.StartMode;
import io.sentinel.point.Quality;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One fixture case: a snapshot given at the start, expectations about it, and optional timed steps
 * with their own expectations. The format is documented in docs/fixtures.md.
 */
public record FixtureCase(
    String name,
    Optional<String> rule,
    StartMode start,
    java.time.Instant startAt,
    List<Given> given,
    Check initial,
    List<Step> steps,
    SourceRef where) {

  /** A point's value and quality, set by a snapshot or a step. */
  public record Given(String pointId, Value value, Quality quality) {}

  /** Flip a point between values, {@code times} times, {@code every} apart. */
  public record Toggle(String pointId, List<Value> values, int times, Duration every) {}

  public record Step(
      Duration at,
      List<Given> set,
      Optional<Toggle> toggle,
      Optional<Boolean> lag,
      boolean restart,
      Check check,
      SourceRef where) {}

  /**
   * What arbitration sends to a point: a value, or none (released); optionally which rule won and
   * the key that decided.
   */
  public record Output(
      Optional<Value> value, Optional<String> rule, Optional<String> decidingKey) {}

  /** Expectations at one moment; empty ones are not checked. */
  public record Check(
      Optional<Map<String, Value>> claims,
      Optional<Map<String, Output>> outputs,
      Optional<String> state,
      List<Map<String, String>> actions,
      boolean actionsExact,
      List<Map<String, String>> events,
      Map<String, Given> points,
      Optional<List<String>> firings) {

    public boolean isEmpty() {
      return claims.isEmpty()
          && outputs.isEmpty()
          && state.isEmpty()
          && actions.isEmpty()
          && !actionsExact
          && events.isEmpty()
          && points.isEmpty()
          && firings.isEmpty();
    }
  }
}
