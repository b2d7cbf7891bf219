package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins what EmbeddedBinaries assumes of zonky: its archive for this machine is on the class path,
 * and once unpacked it is in {@code PG-<md5 of the archive>/bin/pg_ctl}. A zonky upgrade that
 * changes either fails here, not on a Pi's first start (FreshMachineIT shows that start).
 */
class EmbeddedBinariesTest {
  @TempDir Path dir;

  @Test
  void unpacked_onlyOnceZonkyHasUnpackedItsArchive() throws Exception {
    assertThat(EmbeddedBinaries.archiveDigest()).isPresent();
    Path binaries = dir.resolve("pg-bin");
    assertThat(EmbeddedBinaries.unpacked(binaries)).isFalse();

    EmbeddedDatabase.unpack(binaries);

    assertThat(EmbeddedBinaries.unpacked(binaries)).isTrue();
  }
}
