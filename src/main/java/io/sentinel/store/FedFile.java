package io.sentinel.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The feeder's {@code fed} file ({@link FedState}) while the journal runs: kept open and rewritten
 * in place after each commit to PostgreSQL (one positioned write of a fixed-length line: no open,
 * no rename, no {@code fdatasync}), synced at most every {@code syncEvery}, before segments are
 * deleted and at close. A killed process loses none of it (the write is in the kernel's page
 * cache); a power cut may lose the writes since the last sync, and the next start then feeds those
 * records again, which PostgreSQL takes as no-ops (docs/persistence.md, "The feeder's mark").
 */
final class FedFile implements AutoCloseable {
  /** The line's length, padded with spaces: every write covers the one before it whole. */
  static final int LENGTH = 200;

  private final Path dir;
  private final Path file;
  private final long syncEveryNanos;
  private final LongSupplier nanos;
  private final ByteBuffer buffer = ByteBuffer.allocate(LENGTH);
  private FileChannel channel;
  private boolean dirty;
  private long syncedAt;
  private long writes;
  private long syncs;

  FedFile(Path dir, Duration syncEvery, LongSupplier nanos) {
    this.dir = dir;
    this.file = dir.resolve(FedState.FILE);
    this.syncEveryNanos = syncEvery.toNanos();
    this.nanos = nanos;
    this.syncedAt = nanos.getAsLong();
  }

  /** Keeps {@code state}: written at once, synced when the last sync is {@code syncEvery} old. */
  void write(FedState state) throws IOException {
    byte[] line = state.line().getBytes(StandardCharsets.US_ASCII);
    if (line.length > LENGTH - 1) {
      throw new IOException("a journal position of " + line.length + " bytes: " + state.line());
    }
    buffer.clear();
    buffer.put(line);
    while (buffer.position() < LENGTH - 1) {
      buffer.put((byte) ' ');
    }
    buffer.put((byte) '\n');
    buffer.flip();
    FileChannel c = channel();
    while (buffer.hasRemaining()) {
      c.write(buffer, buffer.position());
    }
    writes++;
    dirty = true;
    syncIfDue();
  }

  /** Syncs what was written when the last sync is {@code syncEvery} old (the feeder, idle). */
  void syncIfDue() throws IOException {
    if (dirty && nanos.getAsLong() - syncedAt >= syncEveryNanos) {
      sync();
    }
  }

  /** Syncs what was written (before segments are deleted: the mark must not point into them). */
  void sync() throws IOException {
    if (dirty) {
      channel.force(false);
      syncs++;
      dirty = false;
    }
    syncedAt = nanos.getAsLong();
  }

  long writes() {
    return writes;
  }

  long syncs() {
    return syncs;
  }

  @Override
  public void close() throws IOException {
    if (channel != null) {
      sync();
      channel.close();
      channel = null;
    }
  }

  private FileChannel channel() throws IOException {
    if (channel == null) {
      boolean created = !Files.exists(file);
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      if (channel.size() > LENGTH) {
        channel.truncate(LENGTH); // not written by this class: the first write covers the rest
      }
      if (created) {
        // A new file must survive a power cut as a name too: the folder is synced once.
        channel.force(true);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
          d.force(true);
        } catch (IOException e) {
          // Some file systems cannot sync a folder; the journal then feeds again from its start.
        }
      }
    }
    return channel;
  }
}
