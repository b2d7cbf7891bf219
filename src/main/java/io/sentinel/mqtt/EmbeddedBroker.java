package io.sentinel.mqtt;

import io.moquette.BrokerConstants;
import io.moquette.broker.Server;
import io.moquette.broker.config.FluentConfig;
import io.moquette.broker.config.IConfig;
import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.interception.AbstractInterceptHandler;
import io.moquette.interception.messages.InterceptPublishMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The in-process MQTT broker of a gateway started without {@code sentinel.mqtt.url} (Moquette: MQTT
 * 3.1.1, in memory, no telemetry), on a loopback address only: it has no password and no TLS.
 * HiveMQ CE does not run inside a Quarkus JVM.
 */
public final class EmbeddedBroker implements AutoCloseable {
  /** Payloads up to this size pass the broker; the gateway's own limit is lower and counted. */
  private static final int MAX_MESSAGE_BYTES = 1 << 20;

  /**
   * Commands each session loop may queue. Moquette drops a PUBLISH that finds its loop's queue
   * full, unacknowledged and unrouted (its default of 1,024 lost samples of a device's burst); each
   * loop (one per core) allocates its queue whole: 256 KiB at 65,536 (docs/runtime.md).
   */
  static final int SESSION_QUEUE_SIZE = 65_536;

  private static final Logger LOG = Logger.getLogger(EmbeddedBroker.class);

  private final IConfig config;
  private final IAuthorizatorPolicy authorizator;
  private final Observer observer;
  private final String host;
  private final int port;

  /** Guarded by this: replaced when a session loop fails. */
  private Server server;

  /** Guarded by this: the port clients reach, in front of Moquette's. */
  private DupClearingRelay door;

  private boolean closed;
  private final AtomicInteger restarts = new AtomicInteger();

  private EmbeddedBroker(
      IConfig config,
      IAuthorizatorPolicy authorizator,
      String host,
      int port,
      BiConsumer<String, byte[]> published) {
    this.config = config;
    this.authorizator = authorizator;
    this.host = host;
    this.port = port;
    this.observer = new Observer(published, this::sessionLoopFailed);
  }

  private Server startServer() {
    Server s = new Server();
    try {
      s.startServer(config, List.of(observer), null, null, authorizator);
    } catch (IOException e) {
      throw new UncheckedIOException("the embedded MQTT broker did not start", e);
    }
    return s;
  }

  /**
   * Moquette 0.17 runs each client's commands on one of a few session loops, and a loop whose
   * command throws ends for good: every client it serves then gets no PUBACK and no message, while
   * the others go on (a half-dead broker, seen in CI; docs/runtime.md, "The embedded broker"). So
   * Moquette is started again behind the same door, from a thread of its own (stopping joins the
   * loops, one of which tells of the failure on this call); the clients reconnect. What it kept in
   * memory (retained messages, sessions) is lost with it, as at a restart of the gateway.
   */
  private void sessionLoopFailed(Throwable error) {
    LOG.errorf(
        error,
        "SEN-048 the embedded MQTT broker's session loop failed (%s): the clients it served would"
            + " get nothing more, so the broker starts again on %s (its retained messages and"
            + " sessions were in memory: clients reconnect and subscribe again)",
        error,
        url());
    Thread restart =
        new Thread(
            () -> {
              synchronized (this) {
                if (closed) {
                  return;
                }
                server.stopServer();
                door.dropConnections();
                server = startServer();
                restarts.incrementAndGet();
              }
            },
            "sentinel-embedded-broker-restart");
    restart.setDaemon(true);
    restart.start();
  }

  /** How often a failed session loop made the broker start again (tests). */
  public int restarts() {
    return restarts.get();
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
    return start(host, port, published, null);
  }

  /** As above, with {@code authorizator} asked of every publish and subscribe (null: any). */
  static EmbeddedBroker start(
      String host,
      int port,
      BiConsumer<String, byte[]> published,
      IAuthorizatorPolicy authorizator) {
    // A native image is the Pi's gateway, which uses a real server (docs/native.md). There this
    // method is replaced by EmbeddedBrokerSubstitutions (Moquette stays out of the image); the
    // property is the one GraalVM's ImageInfo reads, which lets a JVM test see the refusal.
    if ("runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"))) {
      throw notInNativeImage();
    }
    requireLoopback(host);
    ServerSocket door;
    try {
      door = new ServerSocket();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      // Moquette's own bind failure is a stack trace in its log; this one names the way out.
      door.bind(new InetSocketAddress(InetAddress.getByName(host), port));
    } catch (BindException e) {
      DupClearingRelay.closeQuietly(door);
      throw new PortInUseException(host, port);
    } catch (IOException e) {
      DupClearingRelay.closeQuietly(door);
      throw new UncheckedIOException(e);
    }
    int chosen = door.getLocalPort();
    // Moquette listens behind the door, on a port of its own (DupClearingRelay says why).
    int behind = freePort(host);
    IConfig config =
        new FluentConfig()
            .host(host)
            .port(behind)
            .disablePersistence()
            .allowAnonymous()
            .disableTelemetry()
            .bufferFlushMillis(FluentConfig.BufferFlushKind.IMMEDIATE)
            .sessionQueueSize(SESSION_QUEUE_SIZE)
            .build();
    config.setProperty(IConfig.NETTY_MAX_BYTES_PROPERTY_NAME, Integer.toString(MAX_MESSAGE_BYTES));
    // mosquitto_pub and mosquitto_sub connect with an empty client id (MQTT 3.1.1 allows it with
    // a clean session); Moquette refuses that unless told.
    config.setProperty(BrokerConstants.ALLOW_ZERO_BYTE_CLIENT_ID_PROPERTY_NAME, "true");
    EmbeddedBroker broker = new EmbeddedBroker(config, authorizator, host, chosen, published);
    synchronized (broker) {
      try {
        broker.server = broker.startServer();
      } catch (RuntimeException e) {
        DupClearingRelay.closeQuietly(door);
        throw e;
      }
      broker.door = new DupClearingRelay(door, new InetSocketAddress(host, behind));
    }
    return broker;
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
  public synchronized void close() {
    if (!closed) {
      closed = true;
      door.close();
      server.stopServer();
    }
  }

  /** Copies each published message out of the broker's buffer, which it then releases. */
  private static final class Observer extends AbstractInterceptHandler {
    private final BiConsumer<String, byte[]> published;
    private final Consumer<Throwable> loopFailed;

    Observer(BiConsumer<String, byte[]> published, Consumer<Throwable> loopFailed) {
      this.published = published;
      this.loopFailed = loopFailed;
    }

    @Override
    public String getID() {
      return "sentinel-observer";
    }

    @Override
    public void onSessionLoopError(Throwable error) {
      loopFailed.accept(error);
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
