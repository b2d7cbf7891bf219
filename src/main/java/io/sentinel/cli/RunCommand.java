package io.sentinel.cli;

import io.quarkus.runtime.Quarkus;
import io.sentinel.runtime.GatewayApp;
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
    Quarkus.run(GatewayApp.class, (code, failure) -> System.exit(code));
    return 0;
  }
}
