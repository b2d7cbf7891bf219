package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each core of a site with a standby has its own MQTT client id (docs/standby.md). */
class CoreClientIdTest {
  @Test
  void withAStandby_oneIdPerMachine_withoutOne_theSitesId_configuredWins() {
    String first = GatewayBroker.clientIdOf(Optional.empty(), "plant", true, "edge-1");
    String second = GatewayBroker.clientIdOf(Optional.empty(), "plant", true, "edge-2");
    assertThat(first).isEqualTo("sentinel-plant-edge-1").isNotEqualTo(second);
    assertThat(GatewayBroker.clientIdOf(Optional.empty(), "plant", false, "edge-1"))
        .isEqualTo("sentinel-plant");
    assertThat(GatewayBroker.clientIdOf(Optional.of("core-a"), "plant", true, "edge-1"))
        .isEqualTo("core-a");
    assertThat(GatewayBroker.clientIdOf(Optional.of(" "), "plant", true, "edge-1"))
        .isEqualTo("sentinel-plant-edge-1");
  }
}
