package io.sentinel.rule;

import java.util.Locale;
import java.util.Optional;

/** A rule's whole position in arbitration, highest first. */
public enum Band {
  INTERLOCK,
  SAFETY,
  OPERATOR,
  ORCHESTRATION,
  AUTOMATION,
  AMBIENT;

  /** Higher wins. */
  public int rank() {
    return values().length - ordinal();
  }

  // Made once: it is written for every record the journal keeps.
  private final String wireName = name().toLowerCase(Locale.ROOT);

  public String wireName() {
    return wireName;
  }

  public static Optional<Band> parse(String text) {
    for (Band b : values()) {
      if (b.wireName().equals(text)) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }
}
