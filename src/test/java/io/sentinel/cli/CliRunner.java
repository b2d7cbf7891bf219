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

  /** {@code sentinel replay --from --to --db --verbose} and {@code more}. */
  public static CliRunner replay(
      java.time.Instant from, java.time.Instant to, String db, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "replay",
                "--from",
                from.toString(),
                "--to",
                to.toString(),
                "--db",
                db,
                "--verbose"));
    args.addAll(java.util.List.of(more));
    return run(args.toArray(String[]::new));
  }
}
