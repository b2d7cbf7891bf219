package io.sentinel.engine;

import java.util.Optional;

/**
 * Which firing of which action: the rule, the action's position in it, the rule's generation and
 * the firing's sequence in that generation, written {@code <rule>/<index>/<generation>/<seq>}.
 * Derived, never random, so a replay produces the same ids. A restart and a changed definition each
 * start a new generation (seed 003: "reset starts a new generation, so replaying never reuses an
 * id"); the store reads the index and generation back to keep the action's cooldown and to number
 * on past what the log already holds.
 */
public record ActionId(String ruleId, int index, long generation, long seq) {
  @Override
  public String toString() {
    return ruleId + "/" + index + "/" + generation + "/" + seq;
  }

  /**
   * Reads {@link #toString()} back; empty for text of another shape. An id logged before
   * generations ({@code <rule>/<index>/<seq>}) reads as generation 0, which no new id uses.
   */
  public static Optional<ActionId> parse(String text) {
    String[] parts = text.split("/", -1);
    try {
      if (parts.length == 4 && !parts[0].isEmpty()) {
        return Optional.of(
            new ActionId(
                parts[0],
                Integer.parseInt(parts[1]),
                Long.parseLong(parts[2]),
                Long.parseLong(parts[3])));
      }
      if (parts.length == 3 && !parts[0].isEmpty()) {
        return Optional.of(
            new ActionId(parts[0], Integer.parseInt(parts[1]), 0, Long.parseLong(parts[2])));
      }
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
