package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A start skips Flyway only when Flyway would have done nothing: the history holds exactly this
 * build's migrations, applied, with Flyway's own checksums of the files (docs/deployment.md, "Where
 * the start goes"). Any other history is Flyway's, which still migrates or refuses it.
 */
class MigrationsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void theBuildsList_isTheMigrationFolder() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrderElementsOf(Migrations.FILES);
    }
  }

  @Test
  void current_afterFlywayMigrated_withFlywaysOwnChecksums_andNotOnceTheHistoryDiffers() {
    try (TestDatabase db = TestDatabase.create()) {
      Pool pool = Store.pool(TestDatabase.VERTX, db.url());
      try {
        Map<String, Integer> flyways = new LinkedHashMap<>();
        for (List<String> row :
            db.rows(
                "SELECT version, checksum FROM flyway_schema_history ORDER BY installed_rank")) {
          flyways.put(row.get(0), Integer.valueOf(row.get(1)));
        }
        assertThat(flyways).isEqualTo(Migrations.checksums());
        assertThat(Migrations.current(pool, WAIT)).isTrue();

        // An applied migration's file edited since: not current, and Flyway still refuses it.
        db.execute("UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE version = '13'");
        assertThat(Migrations.current(pool, WAIT)).isFalse();
        assertThatThrownBy(() -> Migrations.migrate(db.url())).hasMessageContaining("checksum");
        db.execute("UPDATE flyway_schema_history SET checksum = checksum - 1 WHERE version = '13'");
        assertThat(Migrations.current(pool, WAIT)).isTrue();

        db.execute("UPDATE flyway_schema_history SET success = false WHERE version = '12'");
        assertThat(Migrations.current(pool, WAIT)).as("a failed migration").isFalse();
        db.execute("UPDATE flyway_schema_history SET success = true WHERE version = '12'");

        db.execute(
            "INSERT INTO flyway_schema_history SELECT 99, '14', 'later', type, 'V14__later.sql', 1,"
                + " installed_by, installed_on, 1, true FROM flyway_schema_history WHERE version ="
                + " '13'");
        assertThat(Migrations.current(pool, WAIT)).as("a version this build lacks").isFalse();
        db.execute("DELETE FROM flyway_schema_history WHERE version = '14'");

        db.execute("DELETE FROM flyway_schema_history WHERE version = '13'");
        assertThat(Migrations.current(pool, WAIT)).as("a migration not applied yet").isFalse();

        db.execute("DROP TABLE flyway_schema_history");
        assertThat(Migrations.current(pool, WAIT)).as("no history at all").isFalse();
      } finally {
        pool.close();
      }
    }
  }
}
