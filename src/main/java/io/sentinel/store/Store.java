package io.sentinel.store;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The store, opened: the schema migrated (Flyway, over JDBC, once), a reactive pool, the journal
 * and its readers. {@link #open} blocks (it is called at start, before the engine runs); nothing
 * after it blocks an event loop.
 */
public final class Store implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Store.class);
  static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  private final DbUrl url;
  private final Pool pool;
  private final Journal journal;
  private final Optional<EmbeddedDatabase> embedded;
  private final Optional<Vertx> ownVertx;

  private Store(
      DbUrl url,
      Pool pool,
      Journal journal,
      Optional<EmbeddedDatabase> embedded,
      Optional<Vertx> ownVertx) {
    this.url = url;
    this.pool = pool;
    this.journal = journal;
    this.embedded = embedded;
    this.ownVertx = ownVertx;
  }

  /** A pool on {@code url} (two connections: the journal's writer and one reader). */
  public static Pool pool(Vertx vertx, DbUrl url) {
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(2).setName("sentinel-store"))
        .connectingTo(url.connectOptions())
        .using(vertx)
        .build();
  }

  /**
   * Opens the store the configuration names: the site's server when {@code sentinel.db.url} is set,
   * else the embedded server in its data folder (started here, stopped by {@link #close()}).
   *
   * @param vertx the gateway's Vert.x, or empty for a command-line tool (one is made and closed)
   */
  public static Store open(
      StoreConfig config, Optional<Vertx> vertx, Journal.Alarms alarms, InstantSource clock)
      throws IOException {
    Optional<EmbeddedDatabase> embedded = Optional.empty();
    DbUrl url;
    if (config.url().isPresent()) {
      url = DbUrl.parse(config.url().get());
    } else {
      // Stopped by close(), after the journal's last batch: not by a hook racing the shutdown.
      EmbeddedDatabase db =
          EmbeddedDatabase.start(
              config.embeddedDataDir(), config.embeddedBinariesDir(), true, 0, false);
      embedded = Optional.of(db);
      url = db.url();
      LOG.infof(
          "SEN-DB-003 no sentinel.db.url: embedded PostgreSQL on %s, data in %s",
          url, config.embeddedDataDir());
    }
    Migrations.migrate(url);
    Optional<Vertx> own = vertx.isPresent() ? Optional.empty() : Optional.of(Vertx.vertx());
    Pool pool = pool(vertx.orElseGet(own::get), url);
    Journal journal = Journal.open(pool, config.journal(), alarms, clock);
    return new Store(url, pool, journal, embedded, own);
  }

  public DbUrl url() {
    return url;
  }

  public Pool pool() {
    return pool;
  }

  public Journal journal() {
    return journal;
  }

  public History history() {
    return new History(pool, READ_TIMEOUT);
  }

  public Revisions revisions() {
    return new Revisions(pool, READ_TIMEOUT);
  }

  public io.sentinel.engine.RestartState restore() throws RowWriter.WriteFailed {
    return RestartReader.load(pool, READ_TIMEOUT);
  }

  @Override
  public void close() throws IOException {
    journal.close();
    pool.close();
    ownVertx.ifPresent(Vertx::close);
    if (embedded.isPresent()) {
      embedded.get().close();
    }
  }
}
