package io.sentinel.runtime;

import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Sample;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * What runs after each pass on the engine's context, fed what the pass took: a shadow revision
 * (docs/shadow.md, {@code ShadowRun}). It must not throw, and must not wait.
 */
public interface Follower {
  Follower NONE = (now, samples, lagging, active, result) -> {};

  void passed(Instant now, List<Sample> samples, boolean lagging, Engine active, PassResult result);

  /** The active engine was handed over to a new rule set at {@code now}. */
  default void activated(Instant now, Engine active) {}

  /** An operator's request took effect on the active engine, before the pass at {@code now}. */
  default void operated(BiFunction<Engine, Instant, ?> request, Instant now) {}

  default Optional<Instant> nextDue() {
    return Optional.empty();
  }
}
