package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged gateway given a configuration key it does not know. Quarkus refuses it before any
 * log is set up; the gateway must still say so, with the key, and exit non-zero: a unit restarting
 * a silent process every two seconds tells the operator nothing.
 */
class RunStartFailureIT {
  @TempDir Path home;

  @Test
  void unknownSentinelKey_exitsNonZero_namingTheKey() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "@" + Path.of("src/main/jvm/edge.options").toAbsolutePath(),
            "-Dsentinel.mqtt.urll=tcp://127.0.0.1:1",
            "-jar",
            Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath().toString(),
            "run",
            "--site",
            Path.of("").toAbsolutePath().toString());
    pb.environment().put("SENTINEL_HOME", home.toString());
    pb.redirectErrorStream(true);
    Process gateway = pb.start();
    String output = new String(gateway.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(gateway.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(gateway.exitValue()).isNotZero();
    assertThat(output)
        .contains("SEN-019 the gateway did not start:")
        .contains("sentinel.mqtt.urll");
  }
}
