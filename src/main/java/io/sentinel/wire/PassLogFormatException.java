package io.sentinel.wire;

/** A line of an NDJSON log that cannot be read; the message names file, line and field. */
public final class PassLogFormatException extends RuntimeException {
  public PassLogFormatException(String message) {
    super(message);
  }
}
