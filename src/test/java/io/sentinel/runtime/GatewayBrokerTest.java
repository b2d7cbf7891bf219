package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sentinel.config.Configuration;
import io.sentinel.config.SentinelConfig;
import io.sentinel.mqtt.Topics;
import io.smallrye.config.PropertiesConfigSource;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, "the embedded broker binds loopback only and says so": a gateway configured with no
 * {@code sentinel.mqtt.url} starts its embedded broker on a loopback address, answers there and not
 * on this machine's other addresses, and logs {@code SEN-003 … loopback only}; told to bind
 * anywhere else it refuses to start ({@code SEN-008}).
 */
class GatewayBrokerTest {
  private static final Topics TOPICS = new Topics("loopback");

  private static SentinelConfig.Mqtt mqtt(Map<String, String> properties) {
    return Configuration.builder()
        .addSystemSources()
        .withSources(new PropertiesConfigSource(properties, "test", 500))
        .build()
        .getConfigMapping(SentinelConfig.class)
        .mqtt();
  }

  @Test
  void withoutAUrl_theEmbeddedBrokerAnswersOnLoopbackOnly_andTheLogSaysSo() throws Exception {
    try (LogCapture log = LogCapture.gateway();
        GatewayBroker broker =
            GatewayBroker.choose(mqtt(Map.of("sentinel.mqtt.embedded-port", "0")), TOPICS)) {
      URI url = broker.settings(mqtt(Map.of()), "loopback-test", Optional.empty()).url();
      assertThat(url.getHost()).isEqualTo("127.0.0.1");
      assertThat(log.lines())
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith("SEN-003 no sentinel.mqtt.url: embedded MQTT broker on " + url)
                      .contains("loopback only", "reachable from this machine alone"));
      assertThat(reachable(InetAddress.getLoopbackAddress(), url.getPort())).isTrue();
      Optional<InetAddress> other = nonLoopbackAddress();
      assumeTrue(other.isPresent(), "this machine has no address but loopback");
      assertThat(reachable(other.get(), url.getPort())).as("on " + other.get()).isFalse();
    }
  }

  @Test
  void anEmbeddedHostOtherThanLoopback_isRefused_namingTheWayOut() throws SocketException {
    List<String> hosts = new java.util.ArrayList<>(List.of("0.0.0.0", "::"));
    nonLoopbackAddress().ifPresent(a -> hosts.add(a.getHostAddress()));
    for (String host : hosts) {
      assertThatThrownBy(
              () ->
                  GatewayBroker.choose(
                      mqtt(
                          Map.of(
                              "sentinel.mqtt.embedded-host",
                              host,
                              "sentinel.mqtt.embedded-port",
                              "0")),
                      TOPICS))
          .as(host)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("SEN-008 sentinel.mqtt.embedded-host is '" + host + "'")
          .hasMessageContaining("binds a loopback address only")
          .hasMessageContaining("set sentinel.mqtt.url");
    }
  }

  /**
   * The site's broker as BrokerTlsTest connects to it: {@code sentinel.mqtt.url} (TLS, with
   * credentials) and {@code sentinel.mqtt.ca-file} reach the gateway's connection unchanged, and no
   * embedded broker starts.
   */
  @Test
  void aConfiguredTlsBroker_isConnectedWithItsUrlAndCa_andNothingIsEmbedded() throws Exception {
    SentinelConfig.Mqtt tls =
        mqtt(
            Map.of(
                "sentinel.mqtt.url", "ssl://gateway:s3cret@broker.site:8883",
                "sentinel.mqtt.ca-file", "/etc/sentinel/site-ca.pem",
                "sentinel.mqtt.embedded-port", "0"));
    try (LogCapture log = LogCapture.gateway();
        GatewayBroker broker = GatewayBroker.choose(tls, TOPICS)) {
      var settings = broker.settings(tls, "tls-gateway", Optional.empty());
      assertThat(settings.url()).isEqualTo(URI.create("ssl://gateway:s3cret@broker.site:8883"));
      assertThat(settings.caFile()).contains(java.nio.file.Path.of("/etc/sentinel/site-ca.pem"));
      assertThat(log.lines()).noneMatch(l -> l.startsWith("SEN-003"));
    }
  }

  private static boolean reachable(InetAddress address, int port) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), 2000);
      return true;
    } catch (ConnectException refused) {
      return false;
    }
  }

  /** An IPv4 address of an interface that is up and not loopback, when the machine has one. */
  private static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
    for (NetworkInterface i : NetworkInterface.networkInterfaces().toList()) {
      if (!i.isUp() || i.isLoopback()) {
        continue;
      }
      Optional<InetAddress> a =
          i.inetAddresses().filter(x -> x instanceof Inet4Address).findFirst();
      if (a.isPresent()) {
        return a;
      }
    }
    return Optional.empty();
  }
}
