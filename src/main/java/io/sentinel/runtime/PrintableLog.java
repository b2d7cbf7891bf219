package io.sentinel.runtime;

import io.quarkus.logging.LoggingFilter;
import io.sentinel.door.Door;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import org.jboss.logmanager.ExtLogRecord;

/**
 * Every log line, on every handler (console, file, syslog: application.properties), is one line of
 * printable text: the message is formatted with its parameters and every control character, line
 * break and lone surrogate in it is escaped as {@code \\uXXXX} ({@link Door#printable}, the one
 * definition). So a topic, a payload fragment, an HTTP field, a revision's text or a database's
 * error text that quotes one cannot forge a log line or rewrite an operator's terminal, whichever
 * log call prints it and whether or not that call escaped it itself (docs/hostile-input.md). A
 * stack trace is printed by the handler after the message, on lines of its own, as before.
 */
@LoggingFilter(name = PrintableLog.NAME)
public final class PrintableLog implements Filter {
  /** The filter's name in {@code quarkus.log.<handler>.filter}. */
  public static final String NAME = "sentinel-printable";

  @Override
  public boolean isLoggable(LogRecord record) {
    escape(record);
    return true;
  }

  /** Replaces the record's message by its formatted, escaped text (idempotent). */
  static void escape(LogRecord record) {
    if (record instanceof ExtLogRecord ext) {
      String formatted = ext.getFormattedMessage();
      ext.setMessage(escaped(formatted), ExtLogRecord.FormatStyle.NO_FORMAT);
      ext.setParameters(null);
      return;
    }
    String message = record.getMessage();
    if (record.getParameters() == null || record.getParameters().length == 0) {
      record.setMessage(escaped(message));
      return;
    }
    Object[] params = record.getParameters();
    Object[] safe = new Object[params.length];
    for (int i = 0; i < params.length; i++) {
      safe[i] = params[i] instanceof Number ? params[i] : escaped(String.valueOf(params[i]));
    }
    record.setMessage(escaped(message));
    record.setParameters(safe);
  }

  private static String escaped(String s) {
    return s == null ? null : Door.escaped(s);
  }
}
