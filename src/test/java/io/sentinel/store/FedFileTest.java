package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.wal.Position;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The feeder's mark, rewritten in place and synced at most every second (docs/persistence.md). */
class FedFileTest {
  static final String HEAD = "9c1e".repeat(16);

  @Test
  void eachWrite_replacesTheLastWhole_evenWhenShorter(@TempDir Path dir) throws Exception {
    AtomicLong now = new AtomicLong();
    try (FedFile f = new FedFile(dir, Duration.ofSeconds(1), now::get)) {
      f.write(new FedState(new Position(123456, 987654321), 1_789_000_000_000_000L, 77_777, HEAD));
      f.write(new FedState(new Position(2, 8), 9, 3, "0".repeat(64)));
      assertThat(FedState.read(dir))
          .contains(new FedState(new Position(2, 8), 9, 3, "0".repeat(64)));
      assertThat(Files.size(dir.resolve(FedState.FILE))).isEqualTo(FedFile.LENGTH);
    }
  }

  @Test
  void aFileWrittenByTheAtomicSave_isTakenOverInPlace(@TempDir Path dir) throws Exception {
    new FedState(new Position(1, 4096), 41, 2, HEAD).save(dir);
    assertThat(FedState.read(dir)).contains(new FedState(new Position(1, 4096), 41, 2, HEAD));
    try (FedFile f = new FedFile(dir, Duration.ofSeconds(1), System::nanoTime)) {
      f.write(new FedState(new Position(1, 8192), 42, 2, HEAD));
    }
    assertThat(FedState.read(dir)).contains(new FedState(new Position(1, 8192), 42, 2, HEAD));
  }

  @Test
  void syncs_atMostEverySecond_andWhenAsked(@TempDir Path dir) throws Exception {
    AtomicLong now = new AtomicLong();
    long ms = 1_000_000;
    try (FedFile f = new FedFile(dir, Duration.ofSeconds(1), now::get)) {
      for (int i = 1; i <= 99; i++) {
        now.set(i * 10 * ms);
        f.write(new FedState(new Position(1, i * 100L), i, 0, HEAD));
      }
      assertThat(f.writes()).isEqualTo(99);
      assertThat(f.syncs()).isZero();
      now.set(1000 * ms);
      f.write(new FedState(new Position(1, 10_000), 100, 0, HEAD));
      assertThat(f.syncs()).isEqualTo(1);
      now.set(1500 * ms);
      f.syncIfDue();
      assertThat(f.syncs()).isEqualTo(1); // nothing written since
      f.write(new FedState(new Position(1, 10_100), 101, 0, HEAD));
      f.sync();
      assertThat(f.syncs()).isEqualTo(2);
      f.sync();
      assertThat(f.syncs()).isEqualTo(2); // nothing new to sync
    }
  }
}
