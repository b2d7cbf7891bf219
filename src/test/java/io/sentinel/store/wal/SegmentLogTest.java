package io.sentinel.store.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentLogTest {
  static byte[] record(int i) {
    return ("record " + i + " " + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
  }

  static List<String> readAll(SegmentLog log) throws IOException {
    List<String> out = new ArrayList<>();
    try (SegmentLog.Reader r = log.reader(log.first())) {
      for (byte[] p; (p = r.next(log.end())) != null; ) {
        out.add(new String(p, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static List<String> expected(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new String(record(i), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void lastRecordCutMidway_everyCompleteRecordIsRecovered_andTheCutIsNamed(@TempDir Path dir)
      throws IOException {
    Position beforeLast;
    Path file;
    try (SegmentLog log = SegmentLog.open(dir, 1 << 20)) {
      for (int i = 0; i < 99; i++) {
        log.append(record(i), record(i).length);
      }
      beforeLast = log.end();
      log.append(record(99), record(99).length);
      log.force();
      file = log.file(beforeLast.segment());
    }
    // The crash: the last record's frame is on disk only up to its middle.
    long cut = beforeLast.offset() + SegmentLog.HEADER + record(99).length / 2;
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.truncate(cut);
    }

    try (SegmentLog log = SegmentLog.open(dir, 1 << 20)) {
      assertThat(readAll(log)).containsExactlyElementsOf(expected(99));
      assertThat(log.tornTails()).hasSize(1);
      TornTail t = log.tornTails().get(0);
      assertThat(t.file()).isEqualTo(file);
      assertThat(t.offset()).isEqualTo(beforeLast.offset());
      assertThat(t.bytesCut()).isEqualTo(cut - beforeLast.offset());
      assertThat(t.toString()).contains(file.toString()).contains("at byte " + beforeLast.offset());
      assertThat(Files.size(file)).isEqualTo(beforeLast.offset());
      // Appending goes on after the recovered records, in a fresh segment.
      log.append(record(99), record(99).length);
      log.force();
      assertThat(readAll(log)).containsExactlyElementsOf(expected(100));
    }
    try (SegmentLog log = SegmentLog.open(dir, 1 << 20)) {
      assertThat(log.tornTails()).isEmpty();
      assertThat(readAll(log)).containsExactlyElementsOf(expected(100));
    }
  }

  @Test
  void aFlippedByte_failsItsChecksum_andIsCutWithWhatFollows(@TempDir Path dir) throws IOException {
    Position third;
    Path file;
    try (SegmentLog log = SegmentLog.open(dir, 1 << 20)) {
      log.append(record(0), record(0).length);
      log.append(record(1), record(1).length);
      third = log.end();
      log.append(record(2), record(2).length);
      log.append(record(3), record(3).length);
      file = log.file(third.segment());
    }
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) third.offset() + SegmentLog.HEADER + 2] ^= 0x20;
    Files.write(file, bytes);
    try (SegmentLog log = SegmentLog.open(dir, 1 << 20)) {
      assertThat(readAll(log)).containsExactlyElementsOf(expected(2));
      assertThat(log.tornTails())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.offset()).isEqualTo(third.offset());
                assertThat(t.why()).isEqualTo("checksum mismatch");
              });
    }
  }

  @Test
  void recordsSpanSegments_andDeletedSegmentsAreGone(@TempDir Path dir) throws IOException {
    try (SegmentLog log = SegmentLog.open(dir, 1024)) {
      for (int i = 0; i < 200; i++) {
        log.append(record(i), record(i).length);
      }
      log.force();
      assertThat(log.segmentCount()).isGreaterThan(5);
      assertThat(readAll(log)).containsExactlyElementsOf(expected(200));
      long last = log.end().segment();
      log.deleteBefore(last);
      assertThat(log.segmentCount()).isEqualTo(1);
      assertThat(log.bytes()).isEqualTo(Files.size(log.file(last)));
    }
  }

  /** Gathered appends reach the file whole: past a full gather, and a record larger than it. */
  @Test
  void recordsOfEverySize_areReadBackAndRecoveredWhole(@TempDir Path dir) throws IOException {
    List<byte[]> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      int size = i == 150 ? SegmentLog.GATHER * 2 : i % 7 == 0 ? 9_000 : 40 + i;
      byte[] r = new byte[size];
      java.util.Arrays.fill(r, (byte) ('a' + i % 26));
      records.add(r);
    }
    try (SegmentLog log = SegmentLog.open(dir, 1L << 20)) {
      for (int i = 0; i < records.size(); i++) {
        log.append(records.get(i), records.get(i).length);
        if (i % 40 == 39) {
          log.force();
        }
      }
      log.force();
      assertThat(readAllBytes(log)).containsExactlyElementsOf(records);
    }
    try (SegmentLog reopened = SegmentLog.open(dir, 1L << 20)) {
      assertThat(reopened.tornTails()).isEmpty();
      assertThat(readAllBytes(reopened)).containsExactlyElementsOf(records);
      long onDisk = 0;
      for (int s = 1; Files.exists(reopened.file(s)); s++) {
        onDisk += Files.size(reopened.file(s));
      }
      assertThat(reopened.bytes()).isEqualTo(onDisk);
    }
  }

  static List<byte[]> readAllBytes(SegmentLog log) throws IOException {
    List<byte[]> out = new ArrayList<>();
    try (SegmentLog.Reader r = log.reader(log.first())) {
      for (byte[] p; (p = r.next(log.end())) != null; ) {
        out.add(p);
      }
    }
    return out;
  }
}
