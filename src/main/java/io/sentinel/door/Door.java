package io.sentinel.door;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The door's checks and limits, one definition each (docs/hostile-input.md says why each limit is
 * what it is). Every method is a pure function of its arguments: the caller hands in the instant a
 * value arrived when the check needs one.
 */
public final class Door {
  private Door() {}

  /** JSON and YAML nesting deeper than this is refused while parsing (arrays, objects, both). */
  public static final int MAX_DEPTH = 64;

  /** A single string (JSON string, YAML scalar) longer than this is refused (characters). */
  public static final int MAX_STRING = 1 << 20;

  /** A JSON number written with more digits than this is refused before it is converted. */
  public static final int MAX_NUMBER_DIGITS = 400;

  /** A YAML document (rule file, revision) is at most this many code points. */
  public static final int MAX_YAML_CODE_POINTS = 2 << 20;

  /** A device's {@code ts} before this is a device whose clock is not set. */
  public static final Instant DEVICE_TIME_FLOOR = Instant.parse("2000-01-01T00:00:00Z");

  /** A device's {@code ts} this far after the gateway received it is a clock running ahead. */
  public static final Duration DEVICE_TIME_AHEAD = Duration.ofDays(1);

  /** API time parameters: years 1 to 9999, well inside PostgreSQL's timestamptz range. */
  public static final Instant QUERY_TIME_FLOOR = Instant.parse("0001-01-01T00:00:00Z");

  public static final Instant QUERY_TIME_CEILING = Instant.parse("9999-12-31T23:59:59.999999Z");

  /**
   * Strict UTF-8: refuses malformed and overlong sequences ({@code C0 AF}), encoded surrogates
   * ({@code ED A0 80}) and code points above U+10FFFF, naming the byte offset.
   *
   * @throws Refusal {@link Flaw#BAD_ENCODING}
   */
  public static String utf8(byte[] bytes, String where) {
    if (isAscii(bytes)) {
      // Most payloads are ASCII, which is strict UTF-8 as it is: no decoder, no buffers.
      return new String(bytes, StandardCharsets.US_ASCII);
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = decoder.decode(in, out, true);
    if (r.isError()) {
      int at = in.position();
      StringBuilder seq = new StringBuilder();
      for (int i = at; i < Math.min(bytes.length, at + r.length()); i++) {
        seq.append(String.format("%02X ", bytes[i] & 0xff));
      }
      throw new Refusal(
          Flaw.BAD_ENCODING,
          where,
          "not strict UTF-8: invalid sequence " + seq.toString().trim() + " at byte " + at);
    }
    decoder.flush(out);
    return out.flip().toString();
  }

  private static boolean isAscii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * A string that may go anywhere (a value, a name, an operator's {@code by}): no control character
   * at all (C0, DEL, C1: NUL and ESC among them) and no lone surrogate.
   *
   * @throws Refusal {@link Flaw#CONTROL_CHARACTER}
   */
  public static String line(String s, String where) {
    check(s, where, false);
    return s;
  }

  /**
   * Text that may run over lines (a YAML scalar, a message): as {@link #line} but tab, line feed
   * and carriage return are allowed.
   */
  public static String text(String s, String where) {
    check(s, where, true);
    return s;
  }

  /** Whether {@link #line} takes {@code s}, without building its refusal (a hot path's check). */
  public static boolean isLine(String s) {
    return firstBad(s, false) < 0;
  }

  /** The first flaw of {@link #line}, if any, without throwing (for a caller that counts). */
  public static Optional<String> lineFlaw(String s) {
    int i = firstBad(s, false);
    return i < 0 ? Optional.empty() : Optional.of(badAt(s, i));
  }

  private static void check(String s, String where, boolean multiline) {
    int i = firstBad(s, multiline);
    if (i >= 0) {
      throw new Refusal(Flaw.CONTROL_CHARACTER, where, badAt(s, i));
    }
  }

  private static int firstBad(String s, boolean multiline) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return i;
      }
      if (Character.isLowSurrogate(c)) {
        return i;
      }
      if (c < 0x20 && !(multiline && (c == '\t' || c == '\n' || c == '\r'))) {
        return i;
      }
      if (c >= 0x7f && c <= 0x9f) {
        return i;
      }
    }
    return -1;
  }

  private static String badAt(String s, int i) {
    char c = s.charAt(i);
    String what =
        Character.isSurrogate(c)
            ? "a lone surrogate"
            : c == 0 ? "a NUL character" : c == 0x1b ? "an escape (ESC)" : "a control character";
    return String.format("%s (U+%04X) at character %d", what, (int) c, i + 1);
  }

  /**
   * A number that every later stage can hold: finite (a conversion may overflow a finite input).
   *
   * @throws Refusal {@link Flaw#NOT_FINITE}
   */
  public static double finite(double d, String where, String after) {
    if (!Double.isFinite(d)) {
      throw new Refusal(Flaw.NOT_FINITE, where, "not a finite number" + after);
    }
    return d;
  }

  /**
   * A device's timestamp: an ISO-8601 instant inside [{@link #DEVICE_TIME_FLOOR}, received + {@link
   * #DEVICE_TIME_AHEAD}], which lies inside PostgreSQL's range.
   *
   * @throws Refusal {@link Flaw#BAD_TIMESTAMP}
   */
  public static Instant deviceTime(Object ts, Instant received, String where) {
    Instant t = parseInstant(ts, where);
    Instant ceiling = received.plus(DEVICE_TIME_AHEAD);
    if (t.isBefore(DEVICE_TIME_FLOOR) || t.isAfter(ceiling)) {
      throw new Refusal(
          Flaw.BAD_TIMESTAMP,
          where,
          "device time "
              + t
              + " lies outside "
              + DEVICE_TIME_FLOOR
              + " .. receipt + "
              + DEVICE_TIME_AHEAD.toHours()
              + " h ("
              + ceiling
              + "): is the device's clock set?");
    }
    return t;
  }

  /** An instant a query names: inside years 1 to 9999 (PostgreSQL holds more; we need no more). */
  public static Instant queryTime(Instant t, String where) {
    if (t.isBefore(QUERY_TIME_FLOOR) || t.isAfter(QUERY_TIME_CEILING)) {
      throw new Refusal(
          Flaw.BAD_TIMESTAMP, where, t + " lies outside years 0001 to 9999: name an instant there");
    }
    return t;
  }

  private static Instant parseInstant(Object ts, String where) {
    if (ts instanceof String s) {
      try {
        return Instant.parse(s);
      } catch (DateTimeParseException e) {
        // said below
      }
    }
    throw new Refusal(
        Flaw.BAD_TIMESTAMP,
        where,
        "must be an ISO-8601 instant such as 2026-11-30T10:00:00Z, found " + quote(ts));
  }

  /**
   * What may be printed of hostile input (a log line, an event, an error message): control
   * characters and lone surrogates escaped as {@code \\uXXXX}, at most {@code max} characters.
   */
  public static String printable(String s, int max) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 8);
    int shown = 0;
    int i = 0;
    for (; i < s.length() && shown < max; i++, shown++) {
      char c = s.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1));
      if (pair) {
        b.append(c).append(s.charAt(++i));
      } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return i < s.length() ? b.append('…').toString() : b.toString();
  }

  /** {@link #printable(String, int)} unclipped: the whole text, control characters escaped. */
  public static String escaped(String s) {
    return printable(s, Integer.MAX_VALUE);
  }

  /** {@link #printable(String, int)} of any value, at most 40 characters, quoted if a string. */
  public static String quote(Object o) {
    return o instanceof String s
        ? "\"" + printable(s, 40) + "\""
        : printable(String.valueOf(o), 40);
  }
}
