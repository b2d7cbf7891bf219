package io.sentinel.runtime;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.sentinel.cli.CliRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * What an operator does once, before the gateway starts (docs/revisions.md, "The operator's flow"):
 * {@code sentinel keygen ops} and {@code sentinel keygen safety-officer --review}, then the two
 * entries they print pasted into a keys.yaml the gateway is pointed at.
 */
public final class OperatorKeysResource implements QuarkusTestResourceLifecycleManager {
  static volatile Path dir;

  @Override
  public Map<String, String> start() {
    try {
      dir =
          Files.createDirectories(
              Path.of(
                  "target/scratch/operator-keys-" + UUID.randomUUID().toString().substring(0, 8)));
      String keys = "keys:\n" + entry("ops") + entry("safety-officer", "--review");
      Path file = Files.writeString(dir.resolve("keys.yaml"), keys);
      return Map.of("sentinel.ruleset.keys-file", file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs keygen as an operator would, and gives back the keys.yaml entry it printed. */
  private static String entry(String name, String... options) {
    String[] args = new String[3 + options.length];
    args[0] = "keygen";
    args[1] = name;
    System.arraycopy(options, 0, args, 2, options.length);
    args[args.length - 1] = "--dir=" + dir;
    CliRunner keygen = CliRunner.run(args);
    String printed = keygen.output();
    if (keygen.exit() != 0) {
      throw new IllegalStateException("sentinel keygen " + name + ": " + printed);
    }
    int header = printed.indexOf("keys:\n");
    if (header < 0) {
      throw new IllegalStateException("sentinel keygen printed no keys.yaml entry: " + printed);
    }
    String rest = printed.substring(header + "keys:\n".length());
    return rest.substring(0, rest.indexOf('\n') + 1);
  }

  @Override
  public void stop() {}
}
