package io.sentinel.store;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings a database's schema to this build's version with Flyway (src/main/resources/db/migration;
 * docs/adr/0002-flyway-migrations.md). Runs over JDBC once at start; nothing else uses JDBC.
 */
public final class Migrations {
  private Migrations() {}

  public static MigrateResult migrate(DbUrl db) {
    Flyway flyway =
        Flyway.configure(Migrations.class.getClassLoader())
            .dataSource(db.jdbcUrl(), db.user(), db.password().orElse(null))
            .locations("classpath:db/migration")
            .load();
    return flyway.migrate();
  }
}
