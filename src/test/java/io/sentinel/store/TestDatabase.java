package io.sentinel.store;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;

/**
 * A database of a test's own: created on the machine's PostgreSQL (127.0.0.1:5432, user postgres)
 * when it answers, else on an embedded server started once for the test JVM; dropped at close.
 */
public final class TestDatabase implements AutoCloseable {
  public static final Vertx VERTX = Vertx.vertx();
  private static EmbeddedDatabase shared;

  private final DbUrl server;
  private final DbUrl url;

  private TestDatabase(DbUrl server, DbUrl url) {
    this.server = server;
    this.url = url;
  }

  public static TestDatabase create() {
    DbUrl server = machineServer().orElseGet(TestDatabase::embedded);
    String name = "sentinel_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    sql(server, "CREATE DATABASE " + name);
    DbUrl url = server.withDatabase(name);
    Migrations.migrate(url);
    return new TestDatabase(server, url);
  }

  public DbUrl url() {
    return url;
  }

  /** The URL as sentinel.db.url takes it, password included (a gateway test configures it). */
  public String configUrl() {
    String credentials =
        java.net.URLEncoder.encode(url.user(), java.nio.charset.StandardCharsets.UTF_8)
            + url.password()
                .map(
                    p ->
                        ":"
                            + java.net.URLEncoder.encode(
                                p, java.nio.charset.StandardCharsets.UTF_8))
                .orElse("");
    return "postgresql://"
        + credentials
        + "@"
        + url.host()
        + ":"
        + url.port()
        + "/"
        + url.database();
  }

  /** The rows of a query, each as its columns' text (tests only: to look). */
  public java.util.List<java.util.List<String>> rows(String query) {
    java.util.List<java.util.List<String>> out = new java.util.ArrayList<>();
    try (Connection c = connect(url);
        Statement s = c.createStatement();
        var rs = s.executeQuery(query)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        java.util.List<String> row = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  /** A JDBC connection of the test's own to its database (to hold a lock across a test's steps). */
  public Connection open() throws SQLException {
    return connect(url);
  }

  /** Runs a statement on the test's database over JDBC (tests only: to look, or to tamper). */
  public void execute(String statement) {
    sql(url, statement);
  }

  /** Runs a statement on the server's maintenance database (to shut the test's database out). */
  public void executeOnServer(String statement) {
    sql(server, statement);
  }

  public long count(String query) {
    try (Connection c = connect(url);
        Statement s = c.createStatement();
        var rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  /**
   * Terminates every session that holds an advisory lock in this database (a core lock's, as a lost
   * connection ends it); returns how many.
   */
  public long terminateLockSessions() {
    return count(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' AND"
            + " granted AND database = (SELECT oid FROM pg_database WHERE datname ="
            + " current_database())");
  }

  public java.util.List<Long> longs(String query) {
    java.util.List<Long> out = new java.util.ArrayList<>();
    try (Connection c = connect(url);
        Statement s = c.createStatement();
        var rs = s.executeQuery(query)) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    sql(server, "DROP DATABASE IF EXISTS " + url.database() + " WITH (FORCE)");
  }

  private static Optional<DbUrl> machineServer() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5432), 500);
    } catch (IOException e) {
      return Optional.empty();
    }
    DbUrl url = DbUrl.parse("postgresql://postgres@127.0.0.1:5432/postgres");
    try (Connection c = connect(url)) {
      c.isValid(1);
      return Optional.of(url);
    } catch (SQLException e) {
      return Optional.empty();
    }
  }

  private static synchronized DbUrl embedded() {
    if (shared == null) {
      try {
        Path dir = Files.createTempDirectory("sentinel-test-pg");
        shared = EmbeddedDatabase.start(dir.resolve("data"), binaries(), false);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared.url().withDatabase("postgres");
  }

  /**
   * Unpacked once per machine, in the temporary folder every user can read (see EmbeddedDatabase).
   */
  public static Path binaries() {
    return Path.of(System.getProperty("java.io.tmpdir"), "sentinel-pg-bin");
  }

  static void sql(DbUrl url, String statement) {
    try (Connection c = connect(url);
        Statement s = c.createStatement()) {
      s.execute(statement);
    } catch (SQLException e) {
      throw new IllegalStateException(statement + ": " + e.getMessage(), e);
    }
  }

  static Connection connect(DbUrl url) throws SQLException {
    // A test's look at the database never waits forever: a read the server never answers (seen
    // once in CrashTest, on the embedded server in the fresh-machine run) fails after a minute,
    // and Surefire reruns the test, instead of hanging the fork until its timeout.
    java.util.Properties props = new java.util.Properties();
    props.setProperty("user", url.user());
    url.password().ifPresent(p -> props.setProperty("password", p));
    props.setProperty("connectTimeout", "10");
    props.setProperty("socketTimeout", "60");
    return DriverManager.getConnection(url.jdbcUrl(), props);
  }
}
