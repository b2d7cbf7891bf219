package io.sentinel.engine;

import io.sentinel.point.PointSpec;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.Optional;

/**
 * An operator's hand on an output: a claim in the {@code operator} band on {@code pointId}, with
 * {@code value}, until {@code until}. It wins over orchestration, automation and ambient rules and
 * gives way to safety and interlock rules, like any operator-band claim; it ends at {@code until}
 * or when the operator clears it, never silently.
 *
 * @param by who set it (free text the operator gives; kept in the audit log)
 * @param reason why (free text; kept in the audit log)
 */
public record OperatorOverride(
    String pointId, Value value, Instant until, String by, String reason) {

  /** The rule id under which overrides claim: it cannot be a rule's id (rule ids have no colon). */
  public static final String RULE_ID = "override:operator";

  /** Inside the operator band, an override goes before any rule (native rules have priority 0). */
  public static final int PRIORITY = 100;

  /** Why an override cannot be taken, and the request field at fault. */
  public record Rejection(String field, String message) {}

  /**
   * Whether this override fits {@code spec} (a point a rule could claim, a value of its type and
   * range) at engine time {@code now}. The one definition, used by the engine and by whoever asks
   * for an override before queuing it.
   */
  public Optional<Rejection> check(PointSpec spec, Instant now) {
    if (!spec.direction().claimable()) {
      return Optional.of(
          new Rejection(
              "point",
              "point "
                  + pointId
                  + " is an input (direction "
                  + spec.direction().wireName()
                  + "): only out and inout points can be overridden"));
    }
    if (!value.isPresent() || !spec.type().accepts(value)) {
      return Optional.of(
          new Rejection(
              "value", "point " + pointId + " is " + describe(spec) + ", not " + show(value)));
    }
    if (!spec.inRange(value)) {
      PointSpec.Range r = spec.range().orElseThrow();
      return Optional.of(
          new Rejection(
              "value",
              show(value)
                  + " is outside the range ["
                  + r.min()
                  + ", "
                  + r.max()
                  + "] of "
                  + pointId));
    }
    if (!until.isAfter(now)) {
      return Optional.of(
          new Rejection("expires_in", "the override must end after now (" + now + ")"));
    }
    return Optional.empty();
  }

  private static String describe(PointSpec spec) {
    if (spec.type() instanceof io.sentinel.point.PointType.Enum e) {
      return "an enum of " + e.values();
    }
    return "a "
        + spec.type().name()
        + (spec.unit().isNone() ? "" : " in " + spec.unit().describe());
  }

  private static String show(Value v) {
    return v instanceof Value.Text t ? "\"" + t.value() + "\"" : v.toString();
  }
}
