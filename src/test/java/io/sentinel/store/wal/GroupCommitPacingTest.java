package io.sentinel.store.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Syncs at most every so often: the first record after a sync waits out the rest of the interval,
 * and everything that queued meanwhile shares the next sync; the first record after a quiet spell
 * syncs at once.
 */
class GroupCommitPacingTest {
  private static final Duration EVERY = Duration.ofMillis(300);

  @Test
  void recordsArrivingWithinTheInterval_shareOneSync(@TempDir Path dir) throws IOException {
    try (Rig rig = new Rig(dir)) {
      GroupCommit<Long> commit = rig.commit;
      ArrayBlockingQueue<Long> queue = rig.queue;
      List<Long> durable = rig.durable;
      List<Long> durableAtNanos = rig.atNanos;
      commit.syncAtMostEvery(EVERY);
      commit.start();

      long t0 = System.nanoTime();
      queue.add(1L);
      await().atMost(Duration.ofSeconds(5)).until(() -> durable.contains(1L));
      assertThat(durableAtNanos.get(0) - t0).isLessThan(EVERY.toNanos()); // after quiet: at once
      for (long i = 2; i <= 6; i++) {
        queue.add(i);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> durable.contains(6L));

      assertThat(commit.stats().syncs()).isEqualTo(2);
      assertThat(commit.stats().records()).isEqualTo(6);
      assertThat(durable).containsExactly(1L, 6L);
      assertThat(durableAtNanos.get(1) - durableAtNanos.get(0))
          .isGreaterThanOrEqualTo(EVERY.toNanos() - Duration.ofMillis(20).toNanos());
    }
  }

  @Test
  void withoutPacing_aRecordIsDurableWithoutWaiting(@TempDir Path dir) throws IOException {
    try (Rig rig = new Rig(dir)) {
      ArrayBlockingQueue<Long> queue = rig.queue;
      List<Long> durable = rig.durable;
      List<Long> at = rig.atNanos;
      rig.commit.start();
      queue.add(1L);
      await().atMost(Duration.ofSeconds(5)).until(() -> durable.contains(1L));
      long t0 = System.nanoTime();
      queue.add(2L);
      await().atMost(Duration.ofSeconds(5)).until(() -> durable.contains(2L));
      assertThat(at.get(1) - t0).isLessThan(EVERY.toNanos());
    }
  }

  @Test
  void aHurriedRecord_isInTheFileBeforeItsSync_andRecoveredByTheNextProcess(@TempDir Path dir)
      throws IOException {
    Path logDir = dir.resolve("log");
    try (Rig rig = new Rig(logDir)) {
      rig.commit.syncAtMostEvery(Duration.ofHours(1));
      rig.commit.start();
      rig.queue.add(1L);
      await().atMost(Duration.ofSeconds(5)).until(() -> rig.durable.contains(1L));

      rig.queue.add(2L); // waits for the next sync, an hour away: in memory only
      await().pollDelay(Duration.ofMillis(300)).until(() -> true);
      assertThat(onDisk(logDir)).doesNotContain("record 2");

      rig.queue.add(3L);
      rig.commit.hurry();
      await().atMost(Duration.ofSeconds(5)).until(() -> onDisk(logDir).contains("record 3"));
      assertThat(onDisk(logDir)).contains("record 2"); // what waited before it goes too
      assertThat(rig.durable).containsExactly(1L); // written, not synced

      // What another process opening the log now (after a crash of this one) recovers.
      List<String> recovered = new ArrayList<>();
      try (SegmentLog after = SegmentLog.open(logDir, 1 << 20);
          SegmentLog.Reader r = after.reader(after.first())) {
        for (byte[] p; (p = r.next(after.end())) != null; ) {
          recovered.add(new String(p, StandardCharsets.UTF_8));
        }
      }
      assertThat(recovered).containsExactly("record 1", "record 2", "record 3");
    }
  }

  /** The text of every segment file as it is on disk (the page cache, as any process reads it). */
  private static String onDisk(Path dir) throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    return all.toString();
  }

  /** A commit over a fresh log whose durable marks, and when each came, go into the lists. */
  private static final class Rig implements AutoCloseable {
    final List<Long> durable = new CopyOnWriteArrayList<>();
    final List<Long> atNanos = new CopyOnWriteArrayList<>();
    final ArrayBlockingQueue<Long> queue = new ArrayBlockingQueue<>(100);
    final SegmentLog log;
    final GroupCommit<Long> commit;

    Rig(Path dir) throws IOException {
      log = SegmentLog.open(dir, 1 << 20);
      commit =
          new GroupCommit<>(
              log, queue, encoder(), 1 << 30, 100, listener(durable, atNanos), "test");
    }

    @Override
    public void close() throws IOException {
      commit.close();
      log.close();
    }
  }

  private static GroupCommit.Encoder<Long> encoder() {
    return new GroupCommit.Encoder<>() {
      @Override
      public GroupCommit.Encoded encode(Long item) {
        byte[] b = ("record " + item).getBytes(StandardCharsets.UTF_8);
        return new GroupCommit.Encoded(b, b.length);
      }

      @Override
      public long mark(Long item) {
        return item;
      }
    };
  }

  private static GroupCommit.Listener listener(List<Long> durable, List<Long> atNanos) {
    return new GroupCommit.Listener() {
      @Override
      public void durable(long mark, Position end) {
        durable.add(mark);
        atNanos.add(System.nanoTime());
      }

      @Override
      public void full(boolean full, long bytes, long maxBytes) {}

      @Override
      public void failed(IOException e) {}
    };
  }
}
