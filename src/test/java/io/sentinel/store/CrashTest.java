package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's process killed with SIGKILL under load, first while PostgreSQL takes its batches,
 * then while PostgreSQL shuts it out and the local journal holds what it cannot feed: after a
 * restart, everything the journal had reported durable is in the table, once.
 */
class CrashTest {
  @Test
  void killedUnderLoad_withPostgresAway_losesNothingItHadReportedDurable(@TempDir Path dir)
      throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      String url =
          "postgresql://postgres@"
              + db.url().host()
              + ":"
              + db.url().port()
              + "/"
              + db.url().database();
      Path spool = dir.resolve("spool");
      Process child =
          ChildJvm.start(JournalCrashChild.class, dir.resolve("child.err"), url, spool.toString());
      AtomicLong durable = new AtomicLong();
      AtomicBoolean degraded = new AtomicBoolean();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line; (line = in.readLine()) != null; ) {
                    String[] p = line.split(" ");
                    if (p.length == 4 && p[0].equals("durable")) {
                      durable.accumulateAndGet(Long.parseLong(p[1]), Math::max);
                      degraded.set(Boolean.parseBoolean(p[2]));
                    }
                  }
                } catch (java.io.IOException e) {
                  // the child died: that is the test
                }
              });
      reader.start();
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> durable.get() > 20_000);
        // PostgreSQL shuts the journal out: its feed fails, the local journal holds the records.
        db.executeOnServer("ALTER DATABASE " + db.url().database() + " ALLOW_CONNECTIONS false");
        db.executeOnServer(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + db.url().database()
                + "' AND pid <> pg_backend_pid()");
        long before = durable.get();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> degraded.get() && durable.get() > before + 20_000);
      } finally {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(30, TimeUnit.SECONDS);
        reader.join(10_000);
        db.executeOnServer("ALTER DATABASE " + db.url().database() + " ALLOW_CONNECTIONS true");
      }
      long reported = durable.get();

      // The gateway's next start: the journal opens on the same folder and feeds it first.
      var pool = Store.pool(TestDatabase.VERTX, db.url());
      Journal journal =
          Journal.open(pool, JournalSettings.defaults(spool), (e, p) -> {}, InstantSource.system());
      try {
        assertThat(journal.drain(Duration.ofSeconds(120))).isTrue();
      } finally {
        journal.close();
        pool.close();
      }
      assertThat(reported).isGreaterThan(40_000);
      // Seen once in a fresh-machine run: a durable mark of 1.79e15 (a timestamp's size, not a
      // count), which sent the gap query below through generate_series until the disk was full.
      assertThat(reported).as("the durable mark the journal reported").isLessThan(10_000_000);
      // Every number up to the mark is an observation, or the journal's own event (degraded).
      List<Long> gaps =
          db.longs(
              "SELECT s FROM generate_series(1, "
                  + reported
                  + ") s EXCEPT (SELECT seq FROM"
                  + " observations UNION SELECT seq FROM control_events) LIMIT 5");
      assertThat(gaps).isEmpty();
      assertThat(db.count("SELECT count(DISTINCT seq) FROM observations"))
          .isEqualTo(db.count("SELECT count(*) FROM observations"));
    }
  }
}
