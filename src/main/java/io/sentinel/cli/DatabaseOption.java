package io.sentinel.cli;

import io.sentinel.store.Databases;
import java.io.IOException;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --db} option of the commands that read the log. */
final class DatabaseOption {
  @Option(
      names = "--db",
      description = "a postgresql:// URL (default: SENTINEL_DB_URL, else the embedded database)")
  Optional<String> db = Optional.empty();

  Databases open() throws IOException {
    return Databases.open(db);
  }
}
