package io.sentinel.runtime;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The gateway's log also in a fresh file of its own, for a test to read what start-up said. */
public final class LogFileResource implements QuarkusTestResourceLifecycleManager {
  static volatile Path file;

  @Override
  public Map<String, String> start() {
    try {
      file = Files.createTempDirectory("sentinel-log").resolve("gateway.log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.of(
        "quarkus.log.file.enabled", "true",
        "quarkus.log.file.path", file.toString(),
        "quarkus.log.file.format", "%-5p [%c] %s%e%n");
  }

  @Override
  public void stop() {}
}
