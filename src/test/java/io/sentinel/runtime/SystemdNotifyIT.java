package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.store.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged gateway as systemd starts a Type=notify unit with WatchdogSec: NOTIFY_SOCKET and
 * WATCHDOG_USEC in its environment and the edge JVM options. It says READY=1, then WATCHDOG=1 every
 * half interval, then STOPPING=1 when it is stopped (SIGTERM, as systemctl stop does).
 */
class SystemdNotifyIT {
  @TempDir Path dir;

  @Test
  void packagedGateway_ready_thenWatchdog_thenStopping() throws Exception {
    try (NotifySocket socket = new NotifySocket(dir);
        TestDatabase db = TestDatabase.create();
        EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0)) {
      ProcessBuilder pb =
          new ProcessBuilder(
              PackagedGateway.runCommand(
                  PackagedGateway.edgeOptions("-Dquarkus.http.port=0"),
                  Path.of("").toAbsolutePath()));
      pb.environment().put("NOTIFY_SOCKET", socket.path.toString());
      pb.environment().put("WATCHDOG_USEC", "1000000");
      pb.environment()
          .put("SENTINEL_HOME", Files.createDirectories(dir.resolve("home")).toString());
      pb.environment().put("SENTINEL_DB_URL", db.configUrl());
      pb.environment().put("SENTINEL_MQTT_URL", broker.url());
      pb.environment()
          .put("SENTINEL_SITE", "notify-" + UUID.randomUUID().toString().substring(0, 8));
      pb.redirectErrorStream(true);
      pb.redirectOutput(Path.of("target", "systemd-notify-it.log").toFile());
      Process gateway = pb.start();
      try {
        List<String> beats = socket.await(3, Duration.ofSeconds(120));
        assertThat(beats).as("see target/systemd-notify-it.log").hasSizeGreaterThanOrEqualTo(3);
        assertThat(beats.get(0)).startsWith("READY=1|STATUS=site notify-");
        assertThat(beats.subList(1, 3)).containsOnly("WATCHDOG=1");

        gateway.destroy(); // SIGTERM
        assertThat(gateway.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(socket.datagrams()).contains("STOPPING=1|STATUS=stopping");
      } finally {
        gateway.destroyForcibly();
      }
    }
  }
}
