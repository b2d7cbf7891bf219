package io.sentinel.store;

import io.sentinel.config.SentinelConfig;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The store's configuration (Quarkus configuration, so each key also reads from the environment:
 * {@code sentinel.db.url} / {@code SENTINEL_DB_URL} ...). Keys and defaults: docs/configuration.md.
 */
public record StoreConfig(
    Optional<String> url,
    Path embeddedDataDir,
    Path embeddedBinariesDir,
    Journal.Settings journal) {

  /** The store's part of the mapping; what is unset there lies under {@code sentinel.home}. */
  public static StoreConfig from(SentinelConfig config) {
    SentinelConfig.Db db = config.db();
    Path home = config.home();
    Journal.Settings d = Journal.Settings.defaults(db.spoolDir().orElse(home.resolve("spool")));
    Journal.Settings settings =
        new Journal.Settings(
            db.queueCapacity(),
            db.batchRows(),
            d.spoolDir(),
            db.spoolMaxMb() << 20,
            d.segmentBytes(),
            db.writeTimeout(),
            db.retryEvery(),
            db.retention());
    return new StoreConfig(
        db.url().filter(u -> !u.isBlank()),
        db.embedded().dataDir().orElse(home.resolve("pgdata")),
        home.resolve("pg-bin"),
        settings);
  }
}
