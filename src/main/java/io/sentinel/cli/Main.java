package io.sentinel.cli;

import io.quarkus.runtime.annotations.QuarkusMain;

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
    return SentinelCommand.commandLine(args).execute(args);
  }

  /** The command line with its output going to {@code out} (tests read it). */
  public static int execute(java.io.PrintWriter out, String... args) {
    return SentinelCommand.commandLine(args).setOut(out).setErr(out).execute(args);
  }
}
