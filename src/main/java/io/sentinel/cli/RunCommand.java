package io.sentinel.cli;

import io.quarkus.runtime.Quarkus;
import io.sentinel.runtime.GatewayApp;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "run",
    description = "Runs the gateway (default site: the repository's example site).")
public final class RunCommand implements Callable<Integer> {
  @Option(
      names = "--site",
      description = "the site folder (default: ${DEFAULT-VALUE})",
      defaultValue = ".")
  Path site;

  @Override
  public Integer call() {
    // Quarkus reads system properties as configuration, so the flag and SENTINEL_SITE_DIR agree.
    System.setProperty("sentinel.site-dir", site.toString());
    ArchiveLinking.atExitIfAsked();
    Quarkus.run(
        GatewayApp.class,
        (code, failure) -> {
          reportFailedStart(failure, System.err);
          System.exit(code);
        });
    return 0;
  }

  /**
   * Says why the gateway did not start when nothing has said it yet. A configuration Quarkus
   * refuses (an unknown or malformed {@code sentinel.*} key) fails before any log is set up, and
   * the process would otherwise exit 1 without a word; a start the gateway refused itself has
   * already logged its {@code SEN-} line, which the cause carries.
   */
  static void reportFailedStart(Throwable failure, PrintStream err) {
    if (failure == null) {
      return;
    }
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String why = String.valueOf(cause.getMessage());
    if (!why.startsWith("SEN-")) {
      err.println(
          "SEN-019 the gateway did not start: " + why.strip().replaceAll("\\s*\\n\\s*", " "));
    }
  }
}
