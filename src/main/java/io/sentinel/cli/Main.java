package io.sentinel.cli;

import io.quarkus.runtime.annotations.QuarkusMain;
import picocli.CommandLine;

/**
 * The one executable. The file commands (validate, test) run on the pure core and never boot the
 * runtime, so they start fast and open no port; {@code run} boots Quarkus with the gateway.
 */
@QuarkusMain
public final class Main {
  private Main() {}

  public static void main(String... args) {
    System.exit(execute(args));
  }

  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /** The command line with its output going to {@code out} (tests read it). */
  public static int execute(java.io.PrintWriter out, String... args) {
    return commandLine().setOut(out).setErr(out).execute(args);
  }

  private static CommandLine commandLine() {
    return new CommandLine(new SentinelCommand()).setCaseInsensitiveEnumValuesAllowed(true);
  }
}
