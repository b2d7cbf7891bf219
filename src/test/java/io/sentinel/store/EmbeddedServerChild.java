package io.sentinel.store;

import java.nio.file.Path;

/**
 * Starts an embedded server, writes a row, says so, and waits to be killed (EmbeddedDatabaseTest).
 */
public final class EmbeddedServerChild {
  public static void main(String... args) throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.start(Path.of(args[0]), Path.of(args[1]), true);
    Migrations.migrate(db.url());
    TestDatabase.sql(db.url(), "INSERT INTO control_events VALUES (1, now(), 'k', 's', 'kept')");
    System.out.println("ready " + db.port());
    System.out.flush();
    Thread.currentThread().join();
  }
}
