package io.sentinel.runtime;

import io.sentinel.config.SentinelConfig;
import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The broker the gateway talks to: {@code sentinel.mqtt.url}, else an embedded one, else (its port
 * taken) the machine's broker already there. The embedded broker, when started, is closed with it.
 */
final class GatewayBroker implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final Optional<EmbeddedBroker> embedded;
  private final String url;

  private GatewayBroker(Optional<EmbeddedBroker> embedded, String url) {
    this.embedded = embedded;
    this.url = url;
  }

  static GatewayBroker choose(SentinelConfig.Mqtt config, Topics topics) {
    Optional<String> configured = config.url().map(String::trim).filter(u -> !u.isBlank());
    if (configured.isPresent()) {
      return new GatewayBroker(Optional.empty(), configured.get());
    }
    try {
      EmbeddedBroker broker = EmbeddedBroker.start(config.embeddedHost(), config.embeddedPort());
      LOG.infof(
          "SEN-003 no sentinel.mqtt.url: embedded MQTT broker on %s, loopback only (anonymous,"
              + " no TLS: reachable from this machine alone; publish samples to %s<id>)",
          broker.url(), topics.pointPrefix());
      return new GatewayBroker(Optional.of(broker), broker.url());
    } catch (EmbeddedBroker.PortInUseException e) {
      // A broker already listens where the embedded one would: that is the machine's broker,
      // which is what an operator who configured nothing expects the gateway to use.
      LOG.infof(
          "SEN-005 no sentinel.mqtt.url and %s:%d is taken: using the broker already there (set"
              + " sentinel.mqtt.url / SENTINEL_MQTT_URL to choose another)",
          config.embeddedHost(), config.embeddedPort());
      return new GatewayBroker(
          Optional.empty(), "tcp://" + config.embeddedHost() + ":" + config.embeddedPort());
    }
  }

  /** The connection's settings: this broker, as {@code clientId}. */
  MqttConnection.Settings settings(
      SentinelConfig.Mqtt config, String clientId, Optional<java.util.concurrent.Executor> loop) {
    return new MqttConnection.Settings(
        URI.create(url),
        clientId,
        config.keepAlive(),
        config.reconnectInitial(),
        config.reconnectMax(),
        config.offlineEvents(),
        version(config),
        config.receiveMaximum(),
        config.caFile().filter(f -> !f.isBlank()).map(java.nio.file.Path::of),
        loop);
  }

  /** The MQTT version spoken to this broker: Moquette speaks 3.1.1 only (docs/runtime.md). */
  int version(SentinelConfig.Mqtt config) {
    return embedded.isPresent() ? 3 : config.version();
  }

  /**
   * How often the journal syncs at most: a PUBACK waits up to this for its pass's sync, so only a
   * window that holds thousands of messages (MQTT 5's Receive Maximum) takes the wait; 3.1.1's
   * window (20 on a default Mosquitto, 10 on Moquette) over a few milliseconds would cap ingest.
   */
  Duration journalSyncEvery(SentinelConfig config) {
    return version(config.mqtt()) == 5 && config.mqtt().receiveMaximum() >= 1_000
        ? config.journal().syncEvery()
        : Duration.ZERO;
  }

  @Override
  public void close() {
    embedded.ifPresent(EmbeddedBroker::close);
  }

  /** The MQTT client id: configured, else one per site, and with a standby one per machine. */
  static String coreClientId(SentinelConfig config, String site) {
    String host =
        Optional.ofNullable(System.getenv("HOSTNAME"))
            .filter(h -> !h.isBlank())
            .orElseGet(
                () -> {
                  try {
                    return java.net.InetAddress.getLocalHost().getHostName();
                  } catch (IOException e) {
                    return Long.toString(ProcessHandle.current().pid());
                  }
                });
    return clientIdOf(config.mqtt().clientId(), site, config.standby().enabled(), host);
  }

  /**
   * The configured client id, else {@code sentinel-<site>}, and with a standby {@code
   * sentinel-<site>-<host>}: two cores of one site on two machines never take each other's session.
   */
  static String clientIdOf(Optional<String> configured, String site, boolean standby, String host) {
    return configured
        .filter(c -> !c.isBlank())
        .orElse("sentinel-" + site + (standby ? "-" + host : ""));
  }
}
