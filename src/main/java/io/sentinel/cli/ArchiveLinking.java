package io.sentinel.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Links, as the JVM exits, the application's classes this run loaded, so that the class-data
 * archive the launcher has this run write (src/main/jvm/sentinel-java) holds them.
 *
 * <p>Java 17's dynamic archive keeps only linked classes, and at exit it links those of the JDK's
 * own loaders, never those of Quarkus's. An application class that was loaded but never linked
 * (loaded to check another one, say) is left out, and every later start reads, inflates and parses
 * it from its jar again: 1,400 of them on the example site. Asking for a class's declared methods
 * links it without initialising it: no static initialiser runs. The launcher names this run's
 * class-loading log ({@code -Xlog:class+load}) in {@value #PROPERTY}; without it nothing happens.
 */
final class ArchiveLinking {
  static final String PROPERTY = "io.sentinel.cds.class-log";
  private static final String FROM_A_JAR = " source: file:";

  /**
   * Beside the log, when this run's archive is not worth keeping: the launcher deletes the archive
   * and has the next run write another.
   */
  static final String DISCARD = "discard";

  /**
   * Classes a run loads only to migrate the database's schema (Flyway skips a current one): an
   * archive written by such a run, the first after an install or an update as a rule, held them,
   * and every later start was 4 MB larger (RSS 126-127 against 122-123 MB, docs/deployment.md).
   */
  private static final String ONE_OFF = "org.flywaydb.";

  private ArchiveLinking() {}

  /** Links at exit when the launcher asked for it. */
  static void atExitIfAsked() {
    String log = System.getProperty(PROPERTY);
    if (log == null || log.isBlank()) {
      return;
    }
    ClassLoader loader = ArchiveLinking.class.getClassLoader();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> link(Path.of(log), loader), "sentinel-cds-link"));
  }

  /**
   * Links every class the log says came from a jar, then deletes the log (the JVM may still write
   * to it; nothing reads it again). Returns how many it linked: none when the run loaded what only
   * a migration loads, and then it leaves the {@value #DISCARD} mark instead.
   */
  static int link(Path log, ClassLoader loader) {
    List<String> lines;
    try {
      lines = Files.readAllLines(log);
      Files.deleteIfExists(log);
    } catch (IOException e) {
      return 0; // the archive is only a little larger without them; the run is unaffected
    }
    if (lines.stream().anyMatch(l -> l.contains(" " + ONE_OFF))) {
      try {
        Files.writeString(log.resolveSibling(DISCARD), "");
      } catch (IOException e) {
        // kept, then: later starts are only larger
      }
      return 0;
    }
    int linked = 0;
    for (String line : lines) {
      int source = line.indexOf(FROM_A_JAR);
      if (source < 0) {
        continue; // the JDK's classes, the archive's, and generated ones
      }
      String name = line.substring(line.lastIndexOf(' ', source - 1) + 1, source);
      try {
        Class.forName(name, false, loader).getDeclaredMethods();
        linked++;
      } catch (LinkageError | ClassNotFoundException | SecurityException e) {
        // a class that cannot link stays out of the archive, as before
      }
    }
    return linked;
  }
}
