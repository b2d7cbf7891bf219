package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.EmbeddedBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command on a fresh machine: the packaged gateway with the edge JVM options (48
 * MB heap), no SENTINEL_DB_URL and an empty data folder, so the embedded PostgreSQL's binaries are
 * not unpacked yet. That JVM is too small for zonky's unpack (it died of OutOfMemoryError there and
 * hung); the gateway must still come up, and unpack only once.
 */
class FreshMachineIT {
  @TempDir Path dir;

  @Test
  void edgeJvm_noDatabaseConfigured_emptyHome_comesUp_andUnpacksOnce() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      Path first = Path.of("target", "fresh-machine-it-1.log");
      assertThat(startsAndStops(home, broker, first)).as("READY=1, see " + first).isTrue();
      String log = Files.readString(first);
      assertThat(log).contains("SEN-DB-008 unpacking").doesNotContain("OutOfMemoryError");

      Path second = Path.of("target", "fresh-machine-it-2.log");
      assertThat(startsAndStops(home, broker, second)).as("READY=1, see " + second).isTrue();
      assertThat(Files.readString(second)).doesNotContain("SEN-DB-008");
    }
  }

  private boolean startsAndStops(Path home, EmbeddedBroker broker, Path log) throws Exception {
    try (NotifySocket socket = new NotifySocket(dir)) {
      ProcessBuilder pb =
          new ProcessBuilder(
              PackagedGateway.runCommand(
                  PackagedGateway.edgeOptions(
                      "-XX:+ExitOnOutOfMemoryError", "-Dquarkus.http.port=0"),
                  Path.of("").toAbsolutePath()));
      pb.environment().remove("SENTINEL_DB_URL");
      pb.environment().put("NOTIFY_SOCKET", socket.path.toString());
      pb.environment().put("SENTINEL_HOME", home.toString());
      pb.environment().put("SENTINEL_MQTT_URL", broker.url());
      pb.environment()
          .put("SENTINEL_SITE", "fresh-" + UUID.randomUUID().toString().substring(0, 8));
      pb.redirectErrorStream(true);
      pb.redirectOutput(log.toFile());
      Process gateway = pb.start();
      try {
        boolean ready =
            socket.await(1, Duration.ofSeconds(180)).stream()
                .anyMatch(d -> d.startsWith("READY=1"));
        gateway.destroy();
        assertThat(gateway.waitFor(60, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
        return ready;
      } finally {
        gateway.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
