package io.sentinel.point;

/** JSON's string escaping, once: for the canonical body of a revision and for device templates. */
public final class JsonText {
  private JsonText() {}

  /**
   * The text of a JSON string without its quotes: only {@code "}, {@code \} and control characters
   * escaped, with the short escapes where JSON has one (RFC 8785's choice, so it is canonical).
   */
  public static String escaped(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }
}
