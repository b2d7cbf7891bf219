package io.sentinel.store;

import io.sentinel.engine.RestartState;
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
 * The store, opened: the schema migrated (Flyway over JDBC, only when not current), a reactive
 * pool, the journal and its readers. {@link #open} blocks (it is called at start, before the engine
 * runs); nothing after it blocks an event loop.
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
        // No pool-side wait limit: every caller bounds its own wait (RowWriter.await), and the
        // pool's timer is not cancelled when a connect fails (vertx-sql-client #1706), which
        // logs an uncaught IllegalStateException every second while PostgreSQL is away.
        .with(new PoolOptions().setMaxSize(2).setName("sentinel-store").setConnectionTimeout(0))
        // Each batch's INSERTs are the same few statements: prepared once per connection, not
        // parsed and described again for every batch (a round trip and a fifth of the event loop's
        // CPU at 10,000 samples/s, docs/load.md).
        .connectingTo(url.connectOptions().setCachePreparedStatements(true))
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
    Optional<Vertx> own = vertx.isPresent() ? Optional.empty() : Optional.of(Vertx.vertx());
    Pool pool = pool(vertx.orElseGet(own::get), url);
    // The schema is brought up to date before the first batch, by the journal's feeder: at once
    // when PostgreSQL answers, retried with backoff when it does not (the gateway runs meanwhile).
    DbUrl db = url;
    Optional<Feeder.Migrator> migrate = Optional.of(() -> Migrations.migrate(db));
    if (answers(pool, Duration.ofSeconds(2))) {
      if (Migrations.current(pool, Duration.ofSeconds(2))) {
        LOG.debugf(
            "SEN-DB-071 schema of %s already at this build's %d migrations: Flyway not needed",
            url.database(), Migrations.FILES.size());
        migrate = Optional.empty();
      } else {
        try {
          Migrations.migrate(url);
          migrate = Optional.empty();
        } catch (RuntimeException e) {
          LOG.warnf(
              "SEN-DB-013 the schema could not be migrated yet (%s): retried", e.getMessage());
        }
      }
    }
    Journal journal = Journal.open(pool, config.journal(), alarms, clock, migrate);
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

  public ShadowRevisions shadows() {
    return new ShadowRevisions(pool, READ_TIMEOUT);
  }

  public Anchors anchors() {
    return new Anchors(pool, READ_TIMEOUT);
  }

  /**
   * The state a restart takes back: PostgreSQL's, then the journal's records PostgreSQL had not
   * taken yet on top. PostgreSQL away (or the schema not there yet): the journal's alone, said.
   */
  public RestartState restore() {
    RestartState fromDatabase;
    if (journal.degraded()) {
      LOG.warnf(
          "SEN-DB-004 PostgreSQL is not reached (%s): the last state comes from the local journal"
              + " alone",
          journal.feedError());
      fromDatabase = RestartState.NONE;
    } else {
      try {
        fromDatabase = RestartReader.load(pool, READ_TIMEOUT);
      } catch (RowWriter.WriteFailed e) {
        LOG.warnf(
            "SEN-DB-005 the last state could not be read from PostgreSQL (%s): it comes from the"
                + " local journal alone",
            e.getMessage());
        fromDatabase = RestartState.NONE;
      }
    }
    return RestartReader.overlaid(fromDatabase, journal.unfedState());
  }

  /**
   * What the broker can deliver again after a crash: the MQTT samples logged after the last
   * acknowledgement mark (docs/live.md), read at start before MQTT connects. The mark and the tail
   * PostgreSQL took are read whenever PostgreSQL is there, even while the journal has not reached
   * it yet (a cold JVM's first connection slower than the open's 2 s check defers the migration to
   * the feeder): skipping them would match nothing, and every message logged but not yet
   * acknowledged at a crash would be logged twice.
   */
  public RedeliveryTail.Tail redeliveryTail() {
    boolean postgres = !journal.degraded() || LogEnd.there(pool, LogEnd.PATIENCE);
    return RedeliveryTail.read(
        pool, postgres, journal.unfedState(), journal.unfedTail(), READ_TIMEOUT);
  }

  /** Whether PostgreSQL answers a trivial query within {@code timeout}. */
  static boolean answers(Pool pool, Duration timeout) {
    try {
      new RowWriter(pool, timeout).await(pool.query("SELECT 1").execute());
      return true;
    } catch (RowWriter.WriteFailed e) {
      return false;
    }
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
