package io.sentinel.engine;

import java.util.Optional;

/**
 * Which firing of which action: the rule, the action's position in it and the firing's sequence
 * number, written {@code <rule>/<index>/<seq>}. Derived, never random, so a replay produces the
 * same ids; the store reads the index back to keep the action's cooldown across a restart.
 */
public record ActionId(String ruleId, int index, long seq) {
  @Override
  public String toString() {
    return ruleId + "/" + index + "/" + seq;
  }

  /** Reads {@link #toString()} back; empty for text of another shape. */
  public static Optional<ActionId> parse(String text) {
    int last = text.lastIndexOf('/');
    int middle = last > 0 ? text.lastIndexOf('/', last - 1) : -1;
    if (middle <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new ActionId(
              text.substring(0, middle),
              Integer.parseInt(text.substring(middle + 1, last)),
              Long.parseLong(text.substring(last + 1))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
