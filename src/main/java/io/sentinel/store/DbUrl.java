package io.sentinel.store;

import io.vertx.pgclient.PgConnectOptions;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A database as configured ({@code sentinel.db.url} / {@code SENTINEL_DB_URL}): a {@code
 * postgresql://user:password@host:port/database} URL, turned into what JDBC (Flyway) and the
 * reactive client each want.
 */
public record DbUrl(
    String host, int port, String database, String user, Optional<String> password) {

  public static DbUrl parse(String url) {
    URI uri;
    try {
      uri = URI.create(url.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("sentinel.db.url is not a URL: " + url, e);
    }
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw new IllegalArgumentException(
          "sentinel.db.url must be a postgresql:// URL (postgresql://user@host:5432/db), not "
              + url);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("sentinel.db.url names no host: " + url);
    }
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    String user = "postgres";
    Optional<String> password = Optional.empty();
    if (uri.getRawUserInfo() != null) {
      String[] parts = uri.getRawUserInfo().split(":", 2);
      user = decode(parts[0]);
      password = parts.length > 1 ? Optional.of(decode(parts[1])) : Optional.empty();
    }
    return new DbUrl(
        uri.getHost(),
        uri.getPort() > 0 ? uri.getPort() : 5432,
        path.isEmpty() ? user : path,
        user,
        password);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  public DbUrl withDatabase(String name) {
    return new DbUrl(host, port, name, user, password);
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database;
  }

  /** JDBC's connection properties: the credentials and what {@code pg_stat_activity} names. */
  public java.util.Properties jdbcProperties(String applicationName) {
    java.util.Properties p = new java.util.Properties();
    p.setProperty("user", user);
    password.ifPresent(pw -> p.setProperty("password", pw));
    p.setProperty("ApplicationName", applicationName);
    return p;
  }

  public PgConnectOptions connectOptions() {
    PgConnectOptions o =
        new PgConnectOptions().setHost(host).setPort(port).setDatabase(database).setUser(user);
    password.ifPresent(o::setPassword);
    return o;
  }

  /** The URL without its password, for logs. */
  @Override
  public String toString() {
    return "postgresql://" + user + "@" + host + ":" + port + "/" + database;
  }
}
