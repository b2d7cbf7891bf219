package io.sentinel.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the sentinel command line in-process and keeps what it printed. */
public record CliRunner(int exit, String output) {
  public static CliRunner run(String... args) {
    StringWriter text = new StringWriter();
    int exit;
    try (PrintWriter out = new PrintWriter(text)) {
      exit = Main.execute(out, args);
    }
    return new CliRunner(exit, text.toString());
  }
}
