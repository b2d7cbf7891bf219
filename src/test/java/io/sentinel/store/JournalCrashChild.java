package io.sentinel.store;

import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The process {@link CrashTest} kills: offers passes of observations as fast as it can and prints,
 * every few milliseconds, the journal's durable sequence number ({@code durable <seq> <degraded>}).
 */
public final class JournalCrashChild {
  public static void main(String... args) throws Exception {
    DbUrl url = DbUrl.parse(args[0]);
    Path spool = Path.of(args[1]);
    Vertx vertx = Vertx.vertx();
    JournalSettings settings =
        new JournalSettings(
            50_000,
            5_000,
            spool,
            512L << 20,
            4L << 20,
            Duration.ofSeconds(1),
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            Duration.ofDays(30),
            Duration.ofSeconds(60));
    Journal journal =
        Journal.open(
            Store.pool(vertx, url),
            settings,
            (e, p) -> System.err.println(e),
            InstantSource.system());
    PassResult nothing =
        new PassResult(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
    Instant t = Instant.now();
    long lastPrint = System.nanoTime();
    for (long i = 0; ; i++) {
      List<Observation> obs = new ArrayList<>(10);
      Instant at = t.plusNanos(i * 1000);
      for (int k = 0; k < 10; k++) {
        obs.add(
            new Observation(
                "zone." + k + ".temp",
                Value.of(20 + (i % 50) / 10.0),
                Quality.LIVE,
                "crash",
                Optional.empty(),
                at));
      }
      // As the engine does: offer and go on; a refusal is the journal's to report, loudly.
      journal.offer(new PassRecord(at, obs, nothing), List.of());
      if (System.nanoTime() - lastPrint > 5_000_000) {
        lastPrint = System.nanoTime();
        System.out.println(
            "durable "
                + journal.durableSeq()
                + " "
                + journal.degraded()
                + " "
                + journal.stats().lost());
        System.out.flush();
      }
      // About 4,000 passes (40,000 observations) a second: a heavy site, not a flood.
      java.util.concurrent.locks.LockSupport.parkNanos(200_000);
    }
  }
}
