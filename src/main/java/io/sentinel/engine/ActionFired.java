package io.sentinel.engine;

import io.sentinel.rule.ActionSpec;
import java.time.Instant;
import java.util.Map;

/**
 * An action that fired. {@code id} is derived from the rule, the action's position and a firing
 * sequence, so a replay produces the same ids. {@code spec} is what the rule says the action does
 * (the command plane reads a pulse's point and length from it); {@code fields} are the event's
 * fields, with a notification's message filled in.
 */
public record ActionFired(
    String id, String ruleId, ActionSpec spec, Map<String, String> fields, Instant at) {
  public ActionFired {
    fields = Map.copyOf(fields);
  }

  /** An action whose fields are its spec's as written (no placeholder to fill in). */
  public ActionFired(String id, String ruleId, ActionSpec spec, Instant at) {
    this(id, ruleId, spec, spec.fields(), at);
  }

  public String kind() {
    return spec.kind();
  }
}
