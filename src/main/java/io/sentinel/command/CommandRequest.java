package io.sentinel.command;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Value;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a pass asks of hardware, the one definition that the command plane (which then rate-limits
 * and delivers it) and the log of commands (which replay compares) share: a point's new arbitrated
 * value or its release, a pulse, or a fade.
 *
 * @param at the decision's pass, or the instant the action fired
 * @param kind {@link Command.Kind#ASSERT}, {@code RELEASE}, {@code PULSE_ON} or {@code FADE}
 * @param value the value asked for; {@link Value#ABSENT} for a release without a release_value
 * @param length a pulse's duration or a fade's ramp; zero otherwise
 * @param lengthAsWritten {@code length} as the rule wrote it ({@code 3s}); empty for zero
 */
public record CommandRequest(
    Instant at,
    String pointId,
    Command.Kind kind,
    Value value,
    Optional<Band> band,
    Optional<String> ruleId,
    Duration length,
    String lengthAsWritten) {

  /**
   * The requests of a pass, decisions first (in arbitration's order), then pulse and fade actions
   * in the order they fired. {@code bands} gives an action's rule's band (an action does not carry
   * it). An action the loader would not have let through (no point, no duration) asks nothing.
   */
  public static List<CommandRequest> of(
      Instant now, PassResult result, Function<String, Optional<Band>> bands) {
    List<CommandRequest> out = new ArrayList<>();
    for (Decision d : result.decisions()) {
      out.add(
          new CommandRequest(
              now,
              d.pointId(),
              d.winner().isPresent() ? Command.Kind.ASSERT : Command.Kind.RELEASE,
              d.value().orElse(Value.ABSENT),
              d.winner().map(w -> w.band()),
              d.winner().map(w -> w.ruleId()),
              Duration.ZERO,
              ""));
    }
    for (ActionFired a : result.actions()) {
      of(a, bands).ifPresent(out::add);
    }
    return out;
  }

  private static Optional<CommandRequest> of(
      ActionFired a, Function<String, Optional<Band>> bands) {
    // What the rule says the action does: a pulse's point and length, a fade's target and ramp.
    if (a.spec() instanceof ActionSpec.Pulse p) {
      return Optional.of(
          new CommandRequest(
              a.at(),
              p.point(),
              Command.Kind.PULSE_ON,
              Value.TRUE,
              bands.apply(a.ruleId()),
              Optional.of(a.ruleId()),
              p.duration(),
              p.written()));
    }
    if (a.spec() instanceof ActionSpec.Fade f) {
      return Optional.of(
          new CommandRequest(
              a.at(),
              f.point(),
              Command.Kind.FADE,
              f.value(),
              bands.apply(a.ruleId()),
              Optional.of(a.ruleId()),
              f.over(),
              f.fields().get("over")));
    }
    return Optional.empty();
  }
}
