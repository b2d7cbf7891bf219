package io.sentinel.store.wal;

import java.nio.file.Path;

/**
 * Where recovery cut a segment: the first record that was incomplete or failed its checksum, and
 * everything after it in that file. A record cut by a crash was never synced, so never
 * acknowledged: cutting it loses nothing anyone was promised.
 */
public record TornTail(Path file, long offset, long bytesCut, String why) {
  @Override
  public String toString() {
    return file + " at byte " + offset + " (" + why + "; " + bytesCut + " bytes cut)";
  }
}
