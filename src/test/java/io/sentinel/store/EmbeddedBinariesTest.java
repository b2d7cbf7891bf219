package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins what EmbeddedBinaries assumes of zonky: its archive for this machine is on the class path,
 * and once unpacked it is in {@code PG-<md5 of the archive>/bin/pg_ctl}. A zonky upgrade that
 * changes either fails here, not on a Pi's first start (FreshMachineIT shows that start). The
 * unpack runs in a JVM of its own, as the gateway's does: zonky unpacks once per JVM and reuses
 * that folder for every later server, so in this one it may have unpacked elsewhere already.
 */
class EmbeddedBinariesTest {
  @TempDir Path dir;

  @Test
  void unpacked_onlyOnceZonkyHasUnpackedItsArchive() throws Exception {
    assertThat(EmbeddedBinaries.archiveDigest()).isPresent();
    Path binaries = dir.resolve("pg-bin");
    assertThat(EmbeddedBinaries.unpacked(binaries)).isFalse();

    Process unpack =
        new ProcessBuilder(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.sentinel.cli.Main",
                "unpack-postgres",
                binaries.toString())
            .inheritIO()
            .start();
    assertThat(unpack.waitFor(3, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(unpack.exitValue()).isZero();

    assertThat(EmbeddedBinaries.unpacked(binaries)).isTrue();
  }
}
