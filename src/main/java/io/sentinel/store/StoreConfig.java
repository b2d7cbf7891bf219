package io.sentinel.store;

import io.sentinel.config.SentinelConfig;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The store's configuration (Quarkus configuration, so each key also reads from the environment:
 * {@code sentinel.db.url} / {@code SENTINEL_DB_URL} ...). Keys and defaults: docs/configuration.md.
 */
public record StoreConfig(
    Optional<String> url, Path embeddedDataDir, Path embeddedBinariesDir, JournalSettings journal) {

  /** The store's part of the mapping; what is unset there lies under {@code sentinel.home}. */
  public static StoreConfig from(SentinelConfig config) {
    SentinelConfig.Db db = config.db();
    SentinelConfig.Journal journal = config.journal();
    Path home = config.home();
    JournalSettings d = JournalSettings.defaults(journal.dir().orElse(home.resolve("journal")));
    JournalSettings settings =
        new JournalSettings(
            db.queueCapacity(),
            db.batchRows(),
            d.dir(),
            journal.maxMb() << 20,
            journal.segmentMb() << 20,
            db.writeTimeout(),
            db.retryEvery(),
            db.retryMax(),
            db.retention(),
            journal.stuckAfter());
    return new StoreConfig(
        db.url().filter(u -> !u.isBlank()),
        db.embedded().dataDir().orElse(home.resolve("pgdata")),
        home.resolve("pg-bin"),
        settings);
  }
}
