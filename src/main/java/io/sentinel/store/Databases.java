package io.sentinel.store;

import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.util.Optional;

/**
 * The log as a command-line tool reads it: the database {@code --db}, {@code SENTINEL_DB_URL} or
 * {@code sentinel.db.url} names, else the gateway's embedded one in its data folder (started for
 * the command and stopped after it).
 */
public final class Databases implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final Optional<EmbeddedDatabase> embedded;
  private final DbUrl url;
  private final Pool pool;

  private Databases(Optional<EmbeddedDatabase> embedded, DbUrl url) {
    this.embedded = embedded;
    this.url = url;
    this.pool = Store.pool(vertx, url);
  }

  public static Databases open(Optional<String> db) throws IOException {
    Optional<String> named =
        db.or(() -> Optional.ofNullable(System.getenv("SENTINEL_DB_URL")))
            .or(() -> Optional.ofNullable(System.getProperty("sentinel.db.url")))
            .filter(u -> !u.isBlank());
    if (named.isPresent()) {
      DbUrl url = DbUrl.parse(named.get());
      Migrations.migrate(url);
      return new Databases(Optional.empty(), url);
    }
    StoreConfig config = StoreConfig.from(io.sentinel.config.Configuration.current());
    EmbeddedDatabase e =
        EmbeddedDatabase.start(config.embeddedDataDir(), config.embeddedBinariesDir(), true);
    Migrations.migrate(e.url());
    return new Databases(Optional.of(e), e.url());
  }

  public DbUrl url() {
    return url;
  }

  public Pool pool() {
    return pool;
  }

  public Anchors anchors() {
    return new Anchors(pool, Store.READ_TIMEOUT);
  }

  public History history() {
    return new History(pool, Store.READ_TIMEOUT);
  }

  public Revisions revisions() {
    return new Revisions(pool, Store.READ_TIMEOUT);
  }

  @Override
  public void close() throws IOException {
    pool.close();
    vertx.close();
    if (embedded.isPresent()) {
      embedded.get().close();
    }
  }
}
