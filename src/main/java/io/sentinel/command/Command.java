package io.sentinel.command;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * What a driver is asked to do to a point. {@code commandId} is {@code <point>/<boot>/<sequence>}:
 * a re-send after a reconnect carries the same id, so a device can drop what it has already done.
 *
 * @param value the value to set; {@link Value#ABSENT} for a release of a point without a
 *     release_value (the device goes to its own default)
 * @param band the winning claim's band; empty for a release
 * @param ruleId the winning rule, or the rule whose pulse this is; empty for a release
 * @param at when the command plane issued it (handed it to the driver)
 * @param ramp for a fade, how long the device takes to reach {@code value}; for a pulse-on, how
 *     long the pulse lasts (the device may end it itself; a {@code pulse-off} follows); zero
 *     otherwise
 */
public record Command(
    String commandId,
    String pointId,
    Value value,
    Optional<Band> band,
    Optional<String> ruleId,
    Kind kind,
    Instant at,
    java.time.Duration ramp) {

  public enum Kind {
    /** A winning claim's value. */
    ASSERT,
    /** No claim is left: the release_value, or no value. */
    RELEASE,
    /** The start of a pulse action. */
    PULSE_ON,
    /** The end of a pulse: back to what arbitration says (or the release value, or false). */
    PULSE_OFF,
    /** A fade action (the DSL's fade_to): the device ramps to the value over {@code ramp}. */
    FADE;

    // Made once: it is written for every record the journal keeps.
    private final String wireName = name().toLowerCase(Locale.ROOT).replace('_', '-');

    public String wireName() {
      return wireName;
    }
  }

  public boolean isRelease() {
    return kind == Kind.RELEASE;
  }
}
