package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/**
 * Logs escape what they print (issue 13), one definition for every log call: {@link PrintableLog}
 * turns each record into one line of printable text whatever the call handed it, and the scan below
 * keeps every way out of the gateway's logging behind it: each log handler the configuration knows
 * has the filter, and no main class writes to the process's own output past the logger.
 * LogForgeryGatewayTest exercises it on a running gateway.
 */
class PrintableLogTest {
  static final String HOSTILE = "x\n12:00:00.000 ERROR [forged] FORGED\u001b[2J\u0000\u0085\ud800";

  static String escaped(LogRecord r) {
    new PrintableLog().isLoggable(r);
    return r instanceof ExtLogRecord e ? e.getFormattedMessage() : r.getMessage();
  }

  @Test
  void aPrintfRecord_isFormattedAndEscaped() {
    ExtLogRecord r =
        new ExtLogRecord(
            Level.WARNING, "SEN-006 rejected %s on %s: %s", ExtLogRecord.FormatStyle.PRINTF, "t");
    r.setParameters(new Object[] {"control-character", "sentinel/s/points/" + HOSTILE, 42});
    String line = escaped(r);
    assertThat(line)
        .startsWith("SEN-006 rejected control-character on sentinel/s/points/x\\u000a12:00:00.000")
        .contains("FORGED\\u001b[2J\\u0000\\u0085\\ud800: 42")
        .doesNotContain("\n", "\u001b", "\u0000", "\u0085");
    assertThat(r.getFormatStyle()).isEqualTo(ExtLogRecord.FormatStyle.NO_FORMAT);
    assertThat(escaped(r)).as("idempotent: a second handler prints the same").isEqualTo(line);
  }

  @Test
  void aConcatenatedMessage_andAMessageFormatOne_areEscapedToo() {
    ExtLogRecord plain =
        new ExtLogRecord(Level.INFO, "event " + HOSTILE, ExtLogRecord.FormatStyle.NO_FORMAT, "t");
    assertThat(escaped(plain)).doesNotContain("\n").contains("\\u000a12:00");
    ExtLogRecord mf =
        new ExtLogRecord(Level.INFO, "a {0} b", ExtLogRecord.FormatStyle.MESSAGE_FORMAT, "t");
    mf.setParameters(new Object[] {HOSTILE});
    assertThat(escaped(mf)).startsWith("a x\\u000a12:00").endsWith(" b");
    LogRecord jul = new LogRecord(Level.INFO, "jul {0} " + HOSTILE);
    jul.setParameters(new Object[] {HOSTILE});
    new PrintableLog().isLoggable(jul);
    assertThat(jul.getMessage()).doesNotContain("\n");
    assertThat((String) jul.getParameters()[0]).doesNotContain("\n");
  }

  @Test
  void ordinaryText_isUntouched() {
    ExtLogRecord r =
        new ExtLogRecord(
            Level.INFO, "SEN-038 revision %d active: %s", ExtLogRecord.FormatStyle.PRINTF, "t");
    r.setParameters(new Object[] {7, "signed by ops; Zürich ✓ 🔥"});
    assertThat(escaped(r)).isEqualTo("SEN-038 revision 7 active: signed by ops; Zürich ✓ 🔥");
  }

  /** Every handler named in the configuration, and the three Quarkus has, print through it. */
  @Test
  void everyLogHandler_hasTheFilter() throws IOException {
    Properties p = new Properties();
    try (var in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
      p.load(in);
    }
    Set<String> handlers = new TreeSet<>(List.of("console", "file", "syslog"));
    Pattern handler = Pattern.compile("quarkus\\.log\\.(console|file|syslog|socket)\\..*");
    Pattern named = Pattern.compile("(quarkus\\.log\\.handler\\.[a-z-]+\\.\"?[^.\"]+\"?)\\..*");
    for (String key : p.stringPropertyNames()) {
      Matcher m = handler.matcher(key);
      if (m.matches()) {
        handlers.add(m.group(1));
      }
      Matcher n = named.matcher(key);
      if (n.matches()) {
        handlers.add(n.group(1).substring("quarkus.log.".length()));
      }
    }
    for (String h : handlers) {
      assertThat(p.getProperty("quarkus.log." + h + ".filter"))
          .as("quarkus.log.%s.filter", h)
          .isEqualTo(PrintableLog.NAME);
    }
  }

  /**
   * Nothing the gateway runs writes to stdout or stderr past the logger (the CLI's file commands
   * print to the terminal what they were asked, in cli/, and never boot the gateway).
   */
  @Test
  void noMainClass_printsPastTheLogger() throws IOException {
    Pattern bypass =
        Pattern.compile(
            "System\\.(out|err)\\.print|printStackTrace\\(\\)|new java\\.util\\.logging\\.\\w*Handler|new (Console|Stream)Handler");
    List<String> found;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      found =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> !f.toString().contains("/cli/"))
              .flatMap(
                  f -> {
                    try {
                      List<String> lines = Files.readAllLines(f);
                      return java.util.stream.IntStream.range(0, lines.size())
                          .filter(i -> bypass.matcher(lines.get(i)).find())
                          .mapToObj(i -> f + ":" + (i + 1) + ": " + lines.get(i).trim());
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .toList();
    }
    assertThat(found).isEmpty();
  }
}
