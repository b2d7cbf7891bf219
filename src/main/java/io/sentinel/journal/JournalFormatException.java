package io.sentinel.journal;

/** A line of an NDJSON log that cannot be read; the message names file, line and field. */
public final class JournalFormatException extends RuntimeException {
  public JournalFormatException(String message) {
    super(message);
  }
}
