package io.sentinel.door;

import java.util.Locale;

/**
 * Why the door refused something: the {@code reason} tag of the refusal's counter (the MQTT
 * rejection reasons carry these names too) and the word its message starts with.
 */
public enum Flaw {
  /**
   * Not strict UTF-8: a malformed or overlong sequence, a surrogate, a code point over U+10FFFF.
   */
  BAD_ENCODING,
  /** A NUL, an ANSI escape or another control character, or a lone surrogate, inside a string. */
  CONTROL_CHARACTER,
  /** A JSON object or YAML mapping naming one key twice. */
  DUPLICATE_KEY,
  /** Nested deeper than {@link Door#MAX_DEPTH}. */
  TOO_DEEP,
  /** Larger than the door's limit, refused before it is parsed. */
  OVERSIZE,
  /** A number that is not finite, before or after conversion to its point's unit. */
  NOT_FINITE,
  /** An instant outside the sane window, or not an instant. */
  BAD_TIMESTAMP,
  /** Not JSON (or YAML) at all. */
  UNREADABLE_JSON;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
