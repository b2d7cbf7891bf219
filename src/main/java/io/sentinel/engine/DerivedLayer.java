package io.sentinel.engine;

import io.sentinel.point.PointTable;
import io.sentinel.point.Transition;
import java.time.Instant;
import java.util.List;

/**
 * The seam where derived points settle, in topological order, after a step's samples are applied
 * and before any rule evaluates. Whatever it adds are ordinary transitions.
 */
public interface DerivedLayer {
  DerivedLayer NONE = (points, transitions, at) -> List.of();

  /** The derived transitions caused by {@code transitions}, already applied to {@code points}. */
  List<Transition> settle(PointTable points, List<Transition> transitions, Instant at);
}
