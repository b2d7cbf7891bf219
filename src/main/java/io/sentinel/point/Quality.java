package io.sentinel.point;

import java.util.Locale;
import java.util.Optional;

/** The quality of a point's value; rules see it beside the value and must say which they accept. */
public enum Quality {
  LIVE,
  STALE,
  UNAVAILABLE,
  BAD,
  /** Never seen since the core started and nothing was restored. */
  UNKNOWN,
  /** Kept from before a restart: looks like a reading, is not one. */
  RESTORED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Quality> parse(String text) {
    for (Quality q : values()) {
      if (q.wireName().equals(text)) {
        return Optional.of(q);
      }
    }
    return Optional.empty();
  }
}
