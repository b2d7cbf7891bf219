package io.sentinel.nativeimage;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.store.EmbeddedDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** In a native image the embedded broker and database refuse to start, naming the way out. */
class NoEmbeddedServersTest {
  private static final String IMAGE_CODE = "org.graalvm.nativeimage.imagecode";

  @BeforeEach
  void asANativeImage() {
    System.setProperty(IMAGE_CODE, "runtime");
  }

  @AfterEach
  void asTheJvm() {
    System.clearProperty(IMAGE_CODE);
  }

  @Test
  void theBrokerNamesSentinelMqttUrl() {
    assertThatThrownBy(() -> EmbeddedBroker.start("127.0.0.1", 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the native image has no embedded MQTT broker: set SENTINEL_MQTT_URL to a running one"
                + " (docs/native.md)");
  }

  @Test
  void theDatabaseNamesSentinelDbUrl(@TempDir Path dir) {
    assertThatThrownBy(() -> EmbeddedDatabase.start(dir.resolve("data"), dir.resolve("bin"), false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no embedded PostgreSQL: set SENTINEL_DB_URL");
  }
}
