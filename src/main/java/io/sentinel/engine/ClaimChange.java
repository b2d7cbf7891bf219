package io.sentinel.engine;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.Optional;

/** What left a rule's claim diff: an assertion (value present) or a release (empty). */
public record ClaimChange(
    String ruleId, String pointId, Band band, Optional<Value> value, Instant at, String reason) {
  public boolean isRelease() {
    return value.isEmpty();
  }
}
