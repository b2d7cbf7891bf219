package io.sentinel.mqtt;

import io.moquette.BrokerConstants;
import io.moquette.broker.Server;
import io.moquette.broker.config.FluentConfig;
import io.moquette.broker.config.IConfig;
import io.moquette.interception.AbstractInterceptHandler;
import io.moquette.interception.messages.InterceptPublishMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The in-process MQTT broker of a gateway started without {@code sentinel.mqtt.url} (Moquette: MQTT
 * 3.1.1, in memory, no telemetry), on a loopback address only: it has no password and no TLS.
 * HiveMQ CE does not run inside a Quarkus JVM.
 */
public final class EmbeddedBroker implements AutoCloseable {
  /** Payloads up to this size pass the broker; the gateway's own limit is lower and counted. */
  private static final int MAX_MESSAGE_BYTES = 1 << 20;

  private final Server server;
  private final String host;
  private final int port;

  private EmbeddedBroker(Server server, String host, int port) {
    this.server = server;
    this.host = host;
    this.port = port;
  }

  /**
   * The embedded broker takes anyone (no password, no TLS), so it listens on a loopback address
   * only: a broker other machines reach is the site's, configured with {@code sentinel.mqtt.url}.
   */
  private static void requireLoopback(String host) {
    boolean loopback;
    try {
      loopback = InetAddress.getByName(host).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      loopback = false;
    }
    if (!loopback) {
      throw new IllegalArgumentException(
          "SEN-008 sentinel.mqtt.embedded-host is '"
              + host
              + "': the embedded MQTT broker takes anyone (no password, no TLS), so it binds a"
              + " loopback address only (127.0.0.1, ::1); for a broker other machines reach, set"
              + " sentinel.mqtt.url to the site's broker");
    }
  }

  /**
   * Starts a broker on {@code host:port} (a loopback address); port 0 picks a free one.
   *
   * @throws PortInUseException when the port is taken (another broker, most likely)
   */
  public static EmbeddedBroker start(String host, int port) {
    return start(host, port, (topic, payload) -> {});
  }

  /**
   * As {@link #start(String, int)}, with {@code published} told of every message the broker
   * receives (a test's view from the broker's side, which survives clients' reconnections).
   */
  public static EmbeddedBroker start(String host, int port, BiConsumer<String, byte[]> published) {
    // A native image is the Pi's gateway, which uses a real server (docs/native.md). There this
    // method is replaced by EmbeddedBrokerSubstitutions (Moquette stays out of the image); the
    // property is the one GraalVM's ImageInfo reads, which lets a JVM test see the refusal.
    if ("runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"))) {
      throw notInNativeImage();
    }
    requireLoopback(host);
    int chosen = port == 0 ? freePort(host) : port;
    try (ServerSocket probe = new ServerSocket()) {
      // Moquette's own bind failure is a stack trace in its log; this one names the way out.
      probe.bind(new InetSocketAddress(InetAddress.getByName(host), chosen));
    } catch (BindException e) {
      throw new PortInUseException(host, chosen);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    IConfig config =
        new FluentConfig()
            .host(host)
            .port(chosen)
            .disablePersistence()
            .allowAnonymous()
            .disableTelemetry()
            .bufferFlushMillis(FluentConfig.BufferFlushKind.IMMEDIATE)
            .build();
    config.setProperty(IConfig.NETTY_MAX_BYTES_PROPERTY_NAME, Integer.toString(MAX_MESSAGE_BYTES));
    // mosquitto_pub and mosquitto_sub connect with an empty client id (MQTT 3.1.1 allows it with
    // a clean session); Moquette refuses that unless told.
    config.setProperty(BrokerConstants.ALLOW_ZERO_BYTE_CLIENT_ID_PROPERTY_NAME, "true");
    Server server = new Server();
    try {
      server.startServer(config, List.of(new Observer(published)));
    } catch (IOException e) {
      throw new UncheckedIOException("the embedded MQTT broker did not start", e);
    }
    return new EmbeddedBroker(server, host, chosen);
  }

  /** The refusal of a native image, which has no Moquette (docs/native.md). */
  static IllegalStateException notInNativeImage() {
    return new IllegalStateException(
        "the native image has no embedded MQTT broker: set SENTINEL_MQTT_URL to a running one"
            + " (docs/native.md)");
  }

  public int port() {
    return port;
  }

  public String url() {
    return "tcp://" + host + ":" + port;
  }

  @Override
  public void close() {
    server.stopServer();
  }

  /** Copies each published message out of the broker's buffer, which it then releases. */
  private static final class Observer extends AbstractInterceptHandler {
    private final BiConsumer<String, byte[]> published;

    Observer(BiConsumer<String, byte[]> published) {
      this.published = published;
    }

    @Override
    public String getID() {
      return "sentinel-observer";
    }

    @Override
    public void onSessionLoopError(Throwable error) {
      // Moquette logs its own errors; an observer has nothing to add.
    }

    @Override
    public void onPublish(InterceptPublishMessage message) {
      byte[] payload = new byte[message.getPayload().readableBytes()];
      message.getPayload().getBytes(message.getPayload().readerIndex(), payload);
      super.onPublish(message);
      published.accept(message.getTopicName(), payload);
    }
  }

  private static int freePort(String host) {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The embedded broker's port is taken. */
  public static final class PortInUseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PortInUseException(String host, int port) {
      super(
          "SEN-010 "
              + host
              + ":"
              + port
              + " is already in use (is an MQTT broker running?). Connect to it with"
              + " SENTINEL_MQTT_URL=tcp://"
              + host
              + ":"
              + port
              + ", or choose another port for the embedded broker with"
              + " sentinel.mqtt.embedded-port");
    }
  }
}
