package io.sentinel.derived;

import io.sentinel.point.PointSpec;
import java.util.List;

/**
 * A derived point: its registry entry (rules read it like any point), what computes it, the points
 * it reads, and the hash of its definition (a changed definition resets its state).
 */
public record DerivedPoint(
    PointSpec spec, DerivedKind kind, List<String> inputs, String definitionHash) {
  public DerivedPoint {
    inputs = List.copyOf(inputs);
  }

  public String id() {
    return spec.id();
  }
}
