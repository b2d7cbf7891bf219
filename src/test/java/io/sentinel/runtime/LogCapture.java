package io.sentinel.runtime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** What the gateway logs on one logger while a test runs, as an operator would read the lines. */
final class LogCapture extends Handler implements AutoCloseable {
  private final Logger logger;
  private final List<String> lines = new CopyOnWriteArrayList<>();

  private LogCapture(Logger logger) {
    this.logger = logger;
    setLevel(Level.ALL);
    logger.addHandler(this);
  }

  /** The gateway's own logger ({@code io.sentinel.gateway}). */
  static LogCapture gateway() {
    return new LogCapture(Logger.getLogger("io.sentinel.gateway"));
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void publish(LogRecord r) {
    // The gateway logs through JBoss Logging: printf-style, formatted by the record.
    lines.add(
        r instanceof org.jboss.logmanager.ExtLogRecord e
            ? e.getFormattedMessage()
            : String.valueOf(r.getMessage()));
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
