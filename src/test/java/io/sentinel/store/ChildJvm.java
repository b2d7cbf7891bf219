package io.sentinel.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A second JVM on the test's class path, to be killed with SIGKILL (a crash is a process dying).
 */
final class ChildJvm {
  private ChildJvm() {}

  static Process start(Class<?> main, Path stderr, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(stderr.toFile()).start();
  }
}
