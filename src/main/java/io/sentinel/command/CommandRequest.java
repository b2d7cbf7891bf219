package io.sentinel.command;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.YamlFile;
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
    String point = a.fields().get("point");
    boolean pulse = a.kind().equals("pulse");
    if (point == null || !(pulse || a.kind().equals("fade"))) {
      return Optional.empty();
    }
    String written = a.fields().get(pulse ? "duration" : "over");
    Optional<Duration> length = Optional.ofNullable(written).flatMap(YamlFile::parseDuration);
    String target = a.fields().get("value");
    if (length.isEmpty() || (!pulse && target == null)) {
      return Optional.empty();
    }
    return Optional.of(
        new CommandRequest(
            a.at(),
            point,
            pulse ? Command.Kind.PULSE_ON : Command.Kind.FADE,
            pulse ? Value.TRUE : Value.of(Double.parseDouble(target)),
            bands.apply(a.ruleId()),
            Optional.of(a.ruleId()),
            length.get(),
            written));
  }
}
