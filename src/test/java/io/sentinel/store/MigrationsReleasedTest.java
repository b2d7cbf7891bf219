package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A database a released gateway migrated is migrated by this build: every released migration is
 * still there, and every new one is numbered above them (a V9 added after V11 had shipped left
 * every existing site's database unmigrated and its journal unfed). The released list is
 * src/test/resources/db/released-migrations.txt.
 */
class MigrationsReleasedTest {
  private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");
  private static final Pattern VERSION = Pattern.compile("V(\\d+)__.+\\.sql");

  @Test
  void everyReleasedMigrationIsKept_andEveryNewOneIsNumberedAboveThem() {
    Set<String> released = released();
    Set<String> present = present();
    assertThat(present)
        .as("released migrations are never removed or renamed")
        .containsAll(released);
    int highest = released.stream().mapToInt(MigrationsReleasedTest::version).max().orElse(0);
    for (String name : present) {
      if (!released.contains(name)) {
        assertThat(version(name))
            .as(name + " is new: numbered above the highest released migration, V" + highest)
            .isGreaterThan(highest);
      }
    }
  }

  @Test
  void aDatabaseAtTheReleasedSchema_isMigratedToThisBuilds() {
    int highest = released().stream().mapToInt(MigrationsReleasedTest::version).max().orElseThrow();
    try (TestDatabase db = TestDatabase.create()) {
      DbUrl url = db.url();
      Flyway.configure(Migrations.class.getClassLoader())
          .dataSource(url.jdbcUrl(), url.user(), url.password().orElse(null))
          .locations("classpath:db/migration")
          .target(Integer.toString(highest))
          .load()
          .migrate();
      var result = Migrations.migrate(url);
      assertThat(result.success).isTrue();
      int newest = present().stream().mapToInt(MigrationsReleasedTest::version).max().orElseThrow();
      assertThat(
              result.targetSchemaVersion == null
                  ? result.initialSchemaVersion
                  : result.targetSchemaVersion)
          .isEqualTo(Integer.toString(newest));
    }
  }

  private static Set<String> released() {
    try (Stream<String> lines =
        Files.lines(Path.of("src/test/resources/db/released-migrations.txt"))) {
      return lines
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Set<String> present() {
    try (Stream<Path> files = Files.list(MIGRATIONS)) {
      return files
          .map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int version(String name) {
    Matcher m = VERSION.matcher(name);
    assertThat(m.matches()).as(name + " is named V<n>__<description>.sql").isTrue();
    return Integer.parseInt(m.group(1));
  }
}
