package io.sentinel.store;

import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.jboss.logging.Logger;

/**
 * Brings a database's schema to this build's version with Flyway (src/main/resources/db/migration;
 * docs/adr/0002-flyway-migrations.md). Runs over JDBC once at start; nothing else uses JDBC.
 * Flyway's own lines are below the gateway's log level (application.properties); what it did is
 * said here, a line per migration at debug level.
 *
 * <p>A start whose database already holds this build's schema does not load Flyway at all ({@link
 * #current}): Flyway would only validate and do nothing, and loading it and the JDBC driver is a
 * large part of a start (docs/deployment.md, "Where the start goes").
 */
public final class Migrations {
  private static final Logger LOG = Logger.getLogger("io.sentinel.store");

  /** This build's migrations (MigrationsTest: exactly the files of db/migration). */
  static final List<String> FILES =
      List.of(
          "V1__journal.sql",
          "V2__derived_snapshot_latches.sql",
          "V3__operator_overrides.sql",
          "V4__ruleset_rejections.sql",
          "V5__dead_letters.sql",
          "V6__audit_anchors.sql",
          "V7__core_epoch.sql",
          "V11__ruleset_shadow.sql",
          "V12__core_epoch_released.sql",
          "V13__ingest_acknowledged.sql");

  private Migrations() {}

  /**
   * Whether the database's schema history holds exactly this build's migrations, each applied
   * successfully with the checksum Flyway computes for its file: then {@link #migrate} would apply
   * nothing and its validation would pass. Anything else (no history table, a failed, missing or
   * extra row, another checksum, a row of another type) is not current, and Flyway migrates or
   * refuses as it always has. Over the reactive pool: no JDBC, no Flyway class.
   */
  static boolean current(Pool pool, Duration timeout) {
    Map<String, Integer> applied = new LinkedHashMap<>();
    try {
      for (Row r :
          new RowWriter(pool, timeout)
              .await(
                  pool.query("SELECT version, checksum, type, success FROM flyway_schema_history")
                      .execute())) {
        if (!Boolean.TRUE.equals(r.getBoolean("success"))
            || !"SQL".equals(r.getString("type"))
            || applied.put(r.getString("version"), r.getInteger("checksum")) != null) {
          return false;
        }
      }
    } catch (RowWriter.WriteFailed e) {
      return false; // no history table yet, or no answer: Flyway's to say
    }
    return applied.equals(checksums());
  }

  /** Each migration's version (as Flyway writes it) and checksum. */
  static Map<String, Integer> checksums() {
    Map<String, Integer> c = new LinkedHashMap<>();
    for (String file : FILES) {
      c.put(file.substring(1, file.indexOf("__")), checksum("db/migration/" + file));
    }
    return c;
  }

  /**
   * Flyway's checksum of a SQL migration: CRC-32 of the UTF-8 bytes of its lines without their line
   * breaks, a byte-order mark dropped (so line endings do not change it), as a signed int.
   */
  static int checksum(String resource) {
    CRC32 crc = new CRC32();
    try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no " + resource + " in this build");
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line = lines.readLine();
      if (line != null && line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
      for (; line != null; line = lines.readLine()) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (int) crc.getValue();
  }

  public static MigrateResult migrate(DbUrl db) {
    Flyway flyway =
        Flyway.configure(Migrations.class.getClassLoader())
            .dataSource(db.jdbcUrl(), db.user(), db.password().orElse(null))
            .locations("classpath:db/migration")
            .load();
    MigrateResult result = flyway.migrate();
    for (MigrateOutput m : result.migrations) {
      LOG.debugf(
          "SEN-DB-068 migrated %s to version %s (%s) in %d ms",
          db.database(), m.version, m.description, m.executionTime);
    }
    LOG.debugf(
        "SEN-DB-069 schema of %s at version %s (%d migrations applied now)",
        db.database(),
        java.util.Objects.requireNonNullElse(
            result.targetSchemaVersion, result.initialSchemaVersion),
        result.migrationsExecuted);
    return result;
  }
}
