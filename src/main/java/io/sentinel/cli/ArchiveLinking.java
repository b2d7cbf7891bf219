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
   * to it; nothing reads it again). Returns how many it linked.
   */
  static int link(Path log, ClassLoader loader) {
    List<String> lines;
    try {
      lines = Files.readAllLines(log);
      Files.deleteIfExists(log);
    } catch (IOException e) {
      return 0; // the archive is only a little larger without them; the run is unaffected
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
