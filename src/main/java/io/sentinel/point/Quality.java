package io.sentinel.point;

import java.util.List;
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

  /** From best to worst, by ordinal: a comparison is an array read. */
  private static final int[] BADNESS = new int[values().length];

  static {
    List<Quality> worstLast = List.of(LIVE, STALE, RESTORED, UNKNOWN, UNAVAILABLE, BAD);
    for (Quality q : values()) {
      BADNESS[q.ordinal()] = worstLast.indexOf(q);
    }
  }

  /**
   * The worse of two qualities, from best to worst: live, stale, restored, unknown, unavailable,
   * bad (what a value computed from both is worth); {@code a} when they are as good.
   */
  public static Quality worse(Quality a, Quality b) {
    return BADNESS[b.ordinal()] > BADNESS[a.ordinal()] ? b : a;
  }

  // Made once: it is written for every record the journal keeps.
  private final String wireName = name().toLowerCase(Locale.ROOT);

  public String wireName() {
    return wireName;
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
