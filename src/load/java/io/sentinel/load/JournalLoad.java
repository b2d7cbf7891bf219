package io.sentinel.load;

import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.store.DbUrl;
import io.sentinel.store.Journal;
import io.sentinel.store.JournalStats;
import io.sentinel.store.JournalSettings;
import io.sentinel.store.Migrations;
import io.sentinel.store.Store;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The write path's sustained rate: one thread offers passes of observations as an engine would,
 * as fast as the journal's queue takes them. It prints what the local write-ahead journal made
 * durable (passes, observations and fdatasyncs per second), what the feeder committed to
 * PostgreSQL, and the time {@code offer} takes on the offering thread. A throwaway database is
 * created on the server and dropped after; the journal's folder is a temporary one.
 *
 * <pre>./mvnw -B -q -Pstore-load test-compile exec:exec -Dstore-load.args="seconds=30 per-pass=10"</pre>
 */
public final class JournalLoad {
  public static void main(String... args) throws Exception {
    String server = "postgresql://postgres@127.0.0.1:5432/postgres";
    int seconds = 30;
    int perPass = 10;
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      switch (kv[0]) {
        case "db" -> server = kv[1];
        case "seconds" -> seconds = Integer.parseInt(kv[1]);
        case "per-pass" -> perPass = Integer.parseInt(kv[1]);
        default -> throw new IllegalArgumentException("unknown option " + arg + " (db=, seconds=, per-pass=)");
      }
    }
    DbUrl admin = DbUrl.parse(server);
    String name = "sentinel_load_" + System.currentTimeMillis();
    sql(admin, "CREATE DATABASE " + name);
    DbUrl db = admin.withDatabase(name);
    Vertx vertx = Vertx.vertx();
    Path spool = Files.createTempDirectory("sentinel-load-journal");
    try {
      Migrations.migrate(db);
      Pool pool = Store.pool(vertx, db);
      JournalSettings settings = JournalSettings.defaults(spool);
      Journal journal = Journal.open(pool, settings, (e, p) -> System.err.println(e), InstantSource.system());
      PassResult nothing = new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
      Histogram offerNanos = new Histogram(3);
      Instant t0 = Instant.now();
      long start = System.nanoTime();
      long end = start + Duration.ofSeconds(seconds).toNanos();
      long warm = start + Duration.ofSeconds(Math.min(5, seconds / 3)).toNanos();
      long writtenAtWarm = -1;
      JournalStats atWarm = null;
      long warmAt = 0;
      long passes = 0;
      while (System.nanoTime() < end) {
        if (writtenAtWarm < 0 && System.nanoTime() >= warm) {
          atWarm = journal.stats();
          writtenAtWarm = atWarm.written();
          warmAt = System.nanoTime();
        }
        // Keep the queue from refusing: this measures the writer, not the bound.
        while (journal.backlog() > settings.queueCapacity() * 9 / 10) {
          LockSupport.parkNanos(100_000);
        }
        List<Observation> obs = new ArrayList<>(perPass);
        Instant at = t0.plusNanos(passes * 1000);
        for (int k = 0; k < perPass; k++) {
          obs.add(
              new Observation(
                  "zone." + (passes % 100) + ".temp-" + k,
                  Value.of(20 + (passes % 70) / 10.0),
                  Quality.LIVE,
                  "mqtt:load/zone-" + (passes % 100),
                  Optional.empty(),
                  at));
        }
        long a = System.nanoTime();
        journal.offer(new PassRecord(at, obs, nothing), List.of());
        offerNanos.recordValue(System.nanoTime() - a);
        passes++;
      }
      JournalStats atEnd = journal.stats();
      long writtenAtEnd = atEnd.written();
      long endAt = System.nanoTime();
      journal.drain(Duration.ofSeconds(120));
      JournalStats stats = journal.stats();
      journal.close();
      pool.close();
      double secs = (endAt - warmAt) / 1e9;
      double rate = (writtenAtEnd - writtenAtWarm) / secs;
      double durableObs = (atEnd.durableSeq() - atWarm.durableSeq()) / secs;
      double records = (atEnd.records() - atWarm.records()) / secs;
      double syncs = (atEnd.syncs() - atWarm.syncs()) / secs;
      double syncMs = 1e3 * (atEnd.syncSeconds() - atWarm.syncSeconds()) / Math.max(1, atEnd.syncs() - atWarm.syncs());
      System.out.printf("%n| measure | value |%n|---|---|%n");
      System.out.printf("| observations offered | %,d (%d a pass) |%n", passes * perPass, perPass);
      System.out.printf("| durable in the local journal | **%,.0f passes/s, %,.0f observations/s** |%n", records, durableObs);
      System.out.printf("| fdatasync | %,.0f /s, mean %.2f ms, longest %.2f ms |%n", syncs, syncMs, atEnd.maxSyncSeconds() * 1e3);
      System.out.printf("| sustained rate into PostgreSQL (after %d s of warm-up) | **%,.0f observations/s** |%n",
          Duration.ofNanos(warm - start).toSeconds(), rate);
      System.out.printf("| offer() on the engine's thread, p50 / p99 / p99.9 / max | %.1f / %.1f / %.1f / %.1f us |%n",
          offerNanos.getValueAtPercentile(50) / 1e3, offerNanos.getValueAtPercentile(99) / 1e3,
          offerNanos.getValueAtPercentile(99.9) / 1e3, offerNanos.getMaxValue() / 1e3);
      System.out.printf("| lost / dead-lettered | %d / %d |%n", stats.lost(), stats.deadLetters());
    } finally {
      vertx.close();
      sql(admin, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  private static void sql(DbUrl url, String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
