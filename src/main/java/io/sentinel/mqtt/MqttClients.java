package io.sentinel.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * HiveMQ client builders for a broker URL: {@code tcp://} (1883 by default), {@code ssl://} or
 * {@code mqtts://} (TLS, 8883), credentials from {@code user:password@}. The gateway and {@code
 * sentinel push} reach a broker the same way.
 */
final class MqttClients {
  private MqttClients() {}

  private static boolean tls(URI url) {
    return url.getScheme().equals("ssl") || url.getScheme().equals("mqtts");
  }

  private static int port(URI url) {
    return url.getPort() > 0 ? url.getPort() : tls(url) ? 8883 : 1883;
  }

  static Mqtt3ClientBuilder builder3(URI url, String clientId, Optional<Path> caFile) {
    Mqtt3ClientBuilder builder =
        MqttClient.builder()
            .useMqttVersion3()
            .identifier(clientId)
            .serverHost(url.getHost())
            .serverPort(port(url));
    if (tls(url) && caFile.isPresent()) {
      builder =
          builder
              .sslConfig()
              .trustManagerFactory(BrokerTls.trusting(caFile.get()))
              .applySslConfig();
    } else if (tls(url)) {
      builder = builder.sslWithDefaultConfig();
    }
    if (url.getUserInfo() != null) {
      String[] user = url.getUserInfo().split(":", 2);
      builder =
          builder
              .simpleAuth()
              .username(user[0])
              .password((user.length > 1 ? user[1] : "").getBytes(StandardCharsets.UTF_8))
              .applySimpleAuth();
    }
    return builder;
  }

  static Mqtt5ClientBuilder builder5(URI url, String clientId, Optional<Path> caFile) {
    Mqtt5ClientBuilder b =
        MqttClient.builder()
            .useMqttVersion5()
            .identifier(clientId)
            .serverHost(url.getHost())
            .serverPort(port(url));
    if (tls(url) && caFile.isPresent()) {
      b = b.sslConfig().trustManagerFactory(BrokerTls.trusting(caFile.get())).applySslConfig();
    } else if (tls(url)) {
      b = b.sslWithDefaultConfig();
    }
    if (url.getUserInfo() != null) {
      String[] user = url.getUserInfo().split(":", 2);
      b =
          b.simpleAuth()
              .username(user[0])
              .password((user.length > 1 ? user[1] : "").getBytes(StandardCharsets.UTF_8))
              .applySimpleAuth();
    }
    return b;
  }
}
