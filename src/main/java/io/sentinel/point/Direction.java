package io.sentinel.point;

import java.util.Locale;
import java.util.Optional;

public enum Direction {
  IN,
  OUT,
  INOUT;

  /** Only points that drive something can be claimed by a rule. */
  public boolean claimable() {
    return this != IN;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Direction> parse(String text) {
    for (Direction d : values()) {
      if (d.wireName().equals(text)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }
}
