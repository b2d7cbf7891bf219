package io.sentinel.store;

import java.time.Instant;

/**
 * {@link Instant#toString()}'s text, made without a formatter for the second it last made: the
 * journal writes several instants per observation, nearly all within the same second.
 */
final class InstantText {
  private InstantText() {}

  /** The last second formatted, up to its seconds digits (immutable, so safe to share). */
  private record Second(long epochSecond, String upToSeconds) {}

  private static volatile Second last = new Second(0, "1970-01-01T00:00:00");

  static String of(Instant t) {
    Second s = last;
    if (s.epochSecond != t.getEpochSecond()) {
      String whole = Instant.ofEpochSecond(t.getEpochSecond()).toString();
      s = new Second(t.getEpochSecond(), whole.substring(0, whole.length() - 1));
      last = s;
    }
    int nano = t.getNano();
    if (nano == 0) {
      return s.upToSeconds + 'Z';
    }
    // As ISO_INSTANT: the fraction in as many groups of three digits as it needs, written straight
    // into the text (three objects per instant instead of six: the journal makes several a sample).
    int digits = nano % 1_000_000 == 0 ? 3 : nano % 1_000 == 0 ? 6 : 9;
    int fraction = digits == 3 ? nano / 1_000_000 : digits == 6 ? nano / 1_000 : nano;
    int head = s.upToSeconds.length();
    char[] text = new char[head + digits + 2];
    s.upToSeconds.getChars(0, head, text, 0);
    text[head] = '.';
    for (int i = head + digits; i > head; i--) {
      text[i] = (char) ('0' + fraction % 10);
      fraction /= 10;
    }
    text[text.length - 1] = 'Z';
    return new String(text);
  }
}
