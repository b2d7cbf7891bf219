package io.sentinel.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** A copy of the repository's example site in a folder of a test's own, to change a rule in. */
public final class SiteCopy {
  private SiteCopy() {}

  public static Path of(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("rules"));
    Files.copy(Path.of("seeds/points.yaml"), dir.resolve("points.yaml"));
    Files.copy(Path.of("seeds/derived.yaml"), dir.resolve("derived.yaml"));
    try (var files = Files.list(Path.of("rules"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.copy(f, dir.resolve("rules").resolve(f.getFileName()));
      }
    }
    return dir;
  }

  /** Rewrites one rule file of the copy; fails when the edit changes nothing. */
  public static void edit(Path dir, String ruleFile, UnaryOperator<String> change)
      throws IOException {
    Path f = dir.resolve("rules").resolve(ruleFile);
    String before = Files.readString(f);
    String after = change.apply(before);
    if (after.equals(before)) {
      throw new IllegalArgumentException("the edit of " + f + " changed nothing");
    }
    Files.writeString(f, after);
  }
}
