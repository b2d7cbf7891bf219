package io.sentinel.point;

/** Where a definition came from, for messages that name file and line. */
public record SourceRef(String file, int line) {
  public static final SourceRef NONE = new SourceRef("", 0);

  @Override
  public String toString() {
    return line > 0 ? file + ":" + line : file;
  }
}
