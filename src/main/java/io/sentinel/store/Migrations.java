package io.sentinel.store;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.jboss.logging.Logger;

/**
 * Brings a database's schema to this build's version with Flyway (src/main/resources/db/migration;
 * docs/adr/0002-flyway-migrations.md). Runs over JDBC once at start; nothing else uses JDBC.
 * Flyway's own lines are below the gateway's log level (application.properties); what it did is
 * said here, a line per migration at debug level.
 */
public final class Migrations {
  private static final Logger LOG = Logger.getLogger("io.sentinel.store");

  private Migrations() {}

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
