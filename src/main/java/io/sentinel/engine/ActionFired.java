package io.sentinel.engine;

import java.time.Instant;
import java.util.Map;

/**
 * An action that fired. {@code id} is derived from the rule, the action's position and a firing
 * sequence, so a replay produces the same ids.
 */
public record ActionFired(
    String id, String ruleId, String kind, Map<String, String> fields, Instant at) {
  public ActionFired {
    fields = Map.copyOf(fields);
  }
}
