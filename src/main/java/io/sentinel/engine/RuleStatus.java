package io.sentinel.engine;

import io.sentinel.point.Value;
import java.util.Map;
import java.util.Optional;

/**
 * A rule as it stands: its state, what it last decided (empty before its first evaluation with good
 * inputs), and the claims it holds.
 */
public record RuleStatus(
    String ruleId, RuleState state, Optional<Boolean> lastCondition, Map<String, Value> claims) {
  public RuleStatus {
    claims = Map.copyOf(claims);
  }
}
