package io.sentinel.rule;

import io.sentinel.point.SourceRef;
import java.time.Duration;
import java.util.Map;

/**
 * A fire-and-forget output (a notification, a pulse). Not idempotent, hence the mandatory cooldown.
 * {@code fields} are the kind's own fields (channel, message, point, duration …) as written.
 *
 * @param onRise fire only when the rule's condition turns true, not on every true evaluation (the
 *     DSL's pulse, fade and emit happen once per firing)
 */
public record ActionSpec(
    String kind, Duration cooldown, Map<String, String> fields, boolean onRise, SourceRef where) {
  public ActionSpec {
    fields = Map.copyOf(fields);
  }

  public ActionSpec(String kind, Duration cooldown, Map<String, String> fields, SourceRef where) {
    this(kind, cooldown, fields, false, where);
  }
}
