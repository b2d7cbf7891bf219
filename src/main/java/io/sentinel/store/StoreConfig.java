package io.sentinel.store;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The store's configuration (Quarkus configuration, so each key also reads from the environment:
 * {@code sentinel.db.url} / {@code SENTINEL_DB_URL} ...). Defaults: docs/persistence.md.
 */
public record StoreConfig(
    Optional<String> url,
    Path embeddedDataDir,
    Path embeddedBinariesDir,
    Journal.Settings journal) {

  /** The folder the gateway keeps its own files in, outside any site folder: ~/.sentinel. */
  public static Path home() {
    return Path.of(System.getProperty("user.home"), ".sentinel");
  }

  /** {@code sentinel.home} when set, else {@link #home()}. */
  public static Path home(Config c) {
    return c.getOptionalValue("sentinel.home", String.class).map(Path::of).orElse(home());
  }

  public static StoreConfig from(Config c) {
    Path home = home(c);
    Journal.Settings d =
        Journal.Settings.defaults(
            c.getOptionalValue("sentinel.journal.dir", String.class)
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .orElse(home.resolve("journal")));
    Journal.Settings settings =
        new Journal.Settings(
            c.getOptionalValue("sentinel.db.queue-capacity", Integer.class)
                .orElse(d.queueCapacity()),
            c.getOptionalValue("sentinel.db.batch-rows", Integer.class).orElse(d.batchRows()),
            d.dir(),
            c.getOptionalValue("sentinel.journal.max-mb", Long.class)
                .map(mb -> mb << 20)
                .orElse(d.maxBytes()),
            c.getOptionalValue("sentinel.journal.segment-mb", Long.class)
                .map(mb -> mb << 20)
                .orElse(d.segmentBytes()),
            c.getOptionalValue("sentinel.db.write-timeout", Duration.class)
                .orElse(d.writeTimeout()),
            c.getOptionalValue("sentinel.db.retry-every", Duration.class).orElse(d.retryEvery()),
            c.getOptionalValue("sentinel.db.retry-max", Duration.class).orElse(d.retryMax()),
            c.getOptionalValue("sentinel.db.retention", Duration.class).orElse(d.retention()));
    return new StoreConfig(
        c.getOptionalValue("sentinel.db.url", String.class).filter(u -> !u.isBlank()),
        c.getOptionalValue("sentinel.db.embedded.data-dir", String.class)
            .map(Path::of)
            .orElse(home.resolve("pgdata")),
        home.resolve("pg-bin"),
        settings);
  }
}
