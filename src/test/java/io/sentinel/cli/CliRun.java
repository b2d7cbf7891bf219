package io.sentinel.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the sentinel command line in-process and keeps what it printed. */
record CliRun(int exit, String output) {
  static CliRun of(String... args) {
    StringWriter text = new StringWriter();
    int exit;
    try (PrintWriter out = new PrintWriter(text)) {
      exit = Main.execute(out, args);
    }
    return new CliRun(exit, text.toString());
  }
}
