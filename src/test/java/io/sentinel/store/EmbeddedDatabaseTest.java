package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedDatabaseTest {
  @Test
  void aServerLeftRunningByAKilledGateway_isStopped_andItsDataKept(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("pgdata");
    // A gateway process starts its embedded server and is killed: the server goes on running.
    Process gateway =
        ChildJvm.start(
            EmbeddedServerChild.class,
            dir.resolve("child.err"),
            data.toString(),
            TestDatabase.binaries().toString());
    String ready;
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(gateway.getInputStream(), StandardCharsets.UTF_8))) {
      ready = in.readLine();
    }
    gateway.destroyForcibly();
    gateway.waitFor(30, TimeUnit.SECONDS);
    assertThat(ready).as(Files.readString(dir.resolve("child.err"))).startsWith("ready ");
    assertThat(data.resolve("postmaster.pid")).exists();

    // The next start finds the orphan, stops it, and runs on the same data.
    try (EmbeddedDatabase next = EmbeddedDatabase.start(data, TestDatabase.binaries(), true)) {
      Migrations.migrate(next.url());
      try (var c = TestDatabase.connect(next.url());
          var s = c.createStatement();
          var rs = s.executeQuery("SELECT message FROM control_events")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("kept");
      }
    }
  }
}
