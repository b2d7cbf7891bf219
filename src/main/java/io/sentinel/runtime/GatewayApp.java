package io.sentinel.runtime;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;

/**
 * {@code sentinel run}: the {@link Gateway} starts with the application (and a site with errors
 * fails the start); this only keeps the process until it is stopped.
 */
public class GatewayApp implements QuarkusApplication {
  @Override
  public int run(String... args) {
    Quarkus.waitForExit();
    return 0;
  }
}
