package io.sentinel.rule;

import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A fire-and-forget output of a rule (a notification, a pulse, a fade, an event). Not idempotent,
 * hence the cooldown of the native form; the DSL's pulse, fade and emit fire once per firing
 * ({@link #onRise}) instead.
 */
public sealed interface ActionSpec {
  /** At most one firing per cooldown (zero: no limit). */
  Duration cooldown();

  /** Fire only when the rule's condition turns true, not on every true evaluation. */
  boolean onRise();

  SourceRef where();

  /** The kind as a rule writes it and events name it: notify, pulse, fade, emit. */
  String kind();

  /**
   * The action's fields as the event carries them (and a message's placeholders read them), in the
   * rule's words.
   */
  Map<String, String> fields();

  /** The DSL's fade and emit: once per firing, no cooldown. */
  sealed interface OncePerFiring extends ActionSpec {
    @Override
    default Duration cooldown() {
      return Duration.ZERO;
    }

    @Override
    default boolean onRise() {
      return true;
    }
  }

  /** Send {@code message} to {@code channel}; {@code {{ … }}} placeholders are filled in. */
  record Notify(
      String channel,
      String message,
      Optional<String> zone,
      Optional<String> severity,
      Duration cooldown,
      SourceRef where)
      implements ActionSpec {
    public Notify {
      Objects.requireNonNull(channel);
      Objects.requireNonNull(message);
    }

    @Override
    public boolean onRise() {
      return false;
    }

    @Override
    public String kind() {
      return "notify";
    }

    @Override
    public Map<String, String> fields() {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("channel", channel);
      m.put("message", message);
      zone.ifPresent(z -> m.put("zone", z));
      severity.ifPresent(s -> m.put("severity", s));
      return m;
    }
  }

  /**
   * Switch the bool output {@code point} on for {@code duration}. {@code written} is the duration
   * as the rule wrote it, which the event reports.
   */
  record Pulse(
      String point,
      Duration duration,
      String written,
      Duration cooldown,
      boolean onRise,
      SourceRef where)
      implements ActionSpec {
    public Pulse {
      Objects.requireNonNull(point);
      Objects.requireNonNull(duration);
      Objects.requireNonNull(written);
    }

    @Override
    public String kind() {
      return "pulse";
    }

    @Override
    public Map<String, String> fields() {
      return Map.of("point", point, "duration", written);
    }
  }

  /** Ramp the number output {@code point} to {@code value} over {@code over} (DSL fade_to). */
  record Fade(String point, Value value, Duration over, SourceRef where) implements OncePerFiring {
    public Fade {
      Objects.requireNonNull(point);
      Objects.requireNonNull(value);
      Objects.requireNonNull(over);
    }

    @Override
    public String kind() {
      return "fade";
    }

    @Override
    public Map<String, String> fields() {
      return Map.of("point", point, "value", value.toString(), "over", over.toMillis() + "ms");
    }
  }

  /** Publish the event {@code event} (DSL emit). */
  record Emit(String event, SourceRef where) implements OncePerFiring {
    public Emit {
      Objects.requireNonNull(event);
    }

    @Override
    public String kind() {
      return "emit";
    }

    @Override
    public Map<String, String> fields() {
      return Map.of("event", event);
    }
  }
}
