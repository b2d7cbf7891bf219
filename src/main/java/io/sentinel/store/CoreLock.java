package io.sentinel.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;

/**
 * The site's core lock (docs/standby.md): a session-level PostgreSQL advisory lock on a connection
 * of its own, plain JDBC, outside the store's pool. PostgreSQL releases it when that session ends,
 * however it ends (a clean close, the process killed, {@code pg_terminate_backend}), so holding the
 * connection is holding the lock; {@link #held} asks the server. Taking it increases the site's
 * epoch in {@code core_epoch}, in the same session.
 */
public final class CoreLock implements AutoCloseable {
  /** What {@code application_name} says in {@code pg_stat_activity}: the lock's own session. */
  public static final String APPLICATION_NAME = "sentinel-core-lock";

  private final Connection connection;
  private final String site;
  private final long key;
  private final long epoch;
  private final boolean afterCleanRelease;

  private CoreLock(
      Connection connection, String site, long key, long epoch, boolean afterCleanRelease) {
    this.connection = connection;
    this.site = site;
    this.key = key;
    this.epoch = epoch;
    this.afterCleanRelease = afterCleanRelease;
  }

  /**
   * Takes the lock of {@code site} when no other session holds it, and the next epoch with it;
   * empty while another holds it. {@code timeout} bounds each network wait of this session (pgjdbc
   * counts it in whole seconds, at least one), so a silent network makes {@link #held} fail in that
   * time instead of hanging.
   */
  public static Optional<CoreLock> tryTake(DbUrl db, String site, String holder, Duration timeout)
      throws SQLException {
    Properties p = db.jdbcProperties(APPLICATION_NAME);
    String seconds = Long.toString(Math.max(1, (timeout.toMillis() + 999) / 1000));
    p.setProperty("socketTimeout", seconds);
    // Connecting may be slow on a loaded machine; that delays only this attempt, not the fence.
    p.setProperty("connectTimeout", "5");
    p.setProperty("tcpKeepAlive", "true");
    Connection c = DriverManager.getConnection(db.jdbcUrl(), p);
    try {
      long key = keyOf(site);
      boolean taken;
      try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
        s.setLong(1, key);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          taken = rs.getBoolean(1);
        }
      }
      if (!taken) {
        c.close();
        return Optional.empty();
      }
      // Read before the epoch moves on: whether the previous holder said it stopped cleanly.
      boolean clean;
      try (PreparedStatement s =
          c.prepareStatement("SELECT released_cleanly FROM core_epoch WHERE site = ?")) {
        s.setString(1, site);
        try (ResultSet rs = s.executeQuery()) {
          clean = !rs.next() || rs.getBoolean(1); // no previous holder: nobody to wait for
        }
      }
      long epoch;
      try (PreparedStatement s =
          c.prepareStatement(
              "INSERT INTO core_epoch (site, epoch, holder, taken_at, released_cleanly) VALUES (?,"
                  + " 1, ?, now(), false) ON CONFLICT (site) DO UPDATE SET epoch ="
                  + " core_epoch.epoch + 1, holder = EXCLUDED.holder, taken_at ="
                  + " EXCLUDED.taken_at, released_cleanly = false RETURNING epoch")) {
        s.setString(1, site);
        s.setString(2, holder);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          epoch = rs.getLong(1);
        }
      }
      return Optional.of(new CoreLock(c, site, key, epoch, clean));
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The lock's key: the first 8 bytes of SHA-256 over the site's name. */
  public static long keyOf(String site) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(("sentinel-core:" + site).getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(digest).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256 in this JVM", e);
    }
  }

  /** The number this holder's commands carry: one more than the previous holder's. */
  public long epoch() {
    return epoch;
  }

  /**
   * Whether the server still holds the lock for this session: asked over the connection, so a
   * terminated session or a closed socket answers false at once, a silent one within the timeout.
   */
  public boolean held() {
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    + " AND pid = pg_backend_pid() AND objid = "
                    + (key & 0xFFFFFFFFL)
                    + " AND classid = "
                    + (key >>> 32))) {
      return rs.next() && rs.getLong(1) > 0;
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Whether the previous holder released the lock after a clean stop ({@link #releaseCleanly}), or
   * there was none: its outputs are safe and its journal fed, so there is nothing to wait for.
   */
  public boolean afterCleanRelease() {
    return afterCleanRelease;
  }

  /**
   * Says that this holder's core has stopped cleanly (outputs in their safe states, its journal
   * fed), then releases the lock; the next holder starts without the takeover grace. When the
   * server cannot be told, the next holder waits the grace out, as after any other end.
   */
  public void releaseCleanly() {
    try (PreparedStatement s =
        connection.prepareStatement(
            "UPDATE core_epoch SET released_cleanly = true WHERE site = ? AND epoch = ?")) {
      s.setString(1, site);
      s.setLong(2, epoch);
      s.executeUpdate();
    } catch (SQLException e) {
      // the session is gone: so is the lock, and the next holder waits the grace out
    }
    close();
  }

  /**
   * Drops the connection at once, even while a {@link #held} on another thread waits for an answer
   * that may never come (a silent network): that call returns false. The server ends the session,
   * and frees the lock, once it hears of it: at once on a sound network, after its TCP keepalive on
   * a silent one.
   */
  public void abort() {
    try {
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      // closed already: the session is gone either way
    }
  }

  /** Releases the lock (the session ends). */
  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      // the session is gone either way, and the lock with it
    }
  }
}
