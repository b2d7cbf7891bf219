package io.sentinel.passlog;

import io.sentinel.command.Command;
import io.sentinel.command.CommandRequest;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A command as the engine's outcome asks for it: a point's new arbitrated value (or its release), a
 * pulse or a fade ({@link CommandRequest}, as the log keeps it). This is what replay compares,
 * because it is a pure function of the rule set and the observations; the command plane's rate
 * limits and delivery come after it.
 *
 * @param value the value asked for; {@link Value#ABSENT} for a release without a release_value
 * @param detail the pulse's duration or the fade's ramp as written ({@code 3s}), empty otherwise
 */
public record CommandIntent(
    Instant at,
    String pointId,
    Kind kind,
    Value value,
    Optional<String> ruleId,
    Optional<Band> band,
    String detail)
    implements Compared<CommandIntent> {

  public enum Kind {
    ASSERT,
    RELEASE,
    PULSE,
    FADE;

    // Made once: it is written for every record the journal keeps.
    private final String wireName = name().toLowerCase(Locale.ROOT);

    public String wireName() {
      return wireName;
    }

    public static Optional<Kind> parse(String text) {
      for (Kind k : values()) {
        if (k.wireName().equals(text)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * The commands a pass asked for ({@link CommandRequest#of}), at the pass's instant, decisions
   * first as the plane takes them.
   */
  public static List<CommandIntent> of(Instant now, PassResult result, Bands bands) {
    List<CommandIntent> out = new ArrayList<>();
    for (CommandRequest r : CommandRequest.of(now, result, bands::of)) {
      out.add(
          new CommandIntent(
              r.at(),
              r.pointId(),
              kind(r.kind()),
              r.value(),
              r.ruleId(),
              r.band(),
              r.lengthAsWritten()));
    }
    return out;
  }

  private static Kind kind(Command.Kind kind) {
    return switch (kind) {
      case ASSERT -> Kind.ASSERT;
      case RELEASE -> Kind.RELEASE;
      case FADE -> Kind.FADE;
      default -> Kind.PULSE;
    };
  }

  /** The band of a rule, for pulses (an action does not carry its rule's band). */
  @FunctionalInterface
  public interface Bands {
    Optional<Band> of(String ruleId);
  }

  /** Whether two commands ask the same thing of the same point, whenever they were issued. */
  @Override
  public boolean sameAs(CommandIntent other) {
    return pointId.equals(other.pointId)
        && kind == other.kind
        && value.equals(other.value)
        && ruleId.equals(other.ruleId)
        && detail.equals(other.detail);
  }

  /** {@code boiler.ch1.burner := false (assert by boiler-overheat-cutoff, interlock)}. */
  @Override
  public String describe() {
    String what =
        switch (kind) {
          case ASSERT -> ":= " + value;
          case RELEASE -> "released" + (value.isPresent() ? " to " + value : "");
          case PULSE -> "pulse " + detail;
          case FADE -> "fade to " + value + " over " + detail;
        };
    String by =
        ruleId.map(r -> " (" + r + band.map(b -> ", " + b.wireName()).orElse("") + ")").orElse("");
    return pointId + " " + what + by;
  }
}
