package io.sentinel.mqtt;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The gateway's one MQTT session (HiveMQ client; why: docs/adr/0001-mqtt-client.md): MQTT 5 with a
 * large Receive Maximum by default (the broker's window of unacknowledged QoS 1 messages for the
 * gateway: on Mosquitto 2.0 it replaces {@code max_inflight_messages}, docs/runtime.md "The site's
 * broker"), MQTT 3.1.1 for brokers that need it; a stable client id with a persistent session
 * (clean session / clean start off, no session expiry) so that the broker keeps what arrives while
 * the gateway restarts, QoS 1 both ways, a retained last will that says offline, and automatic
 * reconnection with exponential backoff.
 *
 * <p>While the broker is away, retained state (status, claims, self points) is kept as its latest
 * value per topic and published again on every connect; events wait in a bounded queue (the oldest
 * dropped, and counted, past {@code offlineEventLimit}). Commands do not pass here: the command
 * plane holds them until {@link #connected()}.
 */
public final class MqttConnection {
  private static final Logger LOG = Logger.getLogger(MqttConnection.class);

  /**
   * @param url {@code tcp://host:port} or {@code ssl://host:port}; user and password may be given
   *     as {@code tcp://user:password@host:port}
   */
  public record Settings(
      URI url,
      String clientId,
      Duration keepAlive,
      Duration reconnectInitial,
      Duration reconnectMax,
      int offlineEventLimit,
      int mqttVersion,
      int receiveMaximum,
      Optional<java.nio.file.Path> caFile,
      Optional<java.util.concurrent.Executor> eventLoop) {
    public Settings {
      if (mqttVersion != 3 && mqttVersion != 5) {
        throw new IllegalArgumentException(
            "sentinel.mqtt.version is " + mqttVersion + ": 5 (MQTT 5) or 3 (MQTT 3.1.1)");
      }
      if (receiveMaximum < 1 || receiveMaximum > 65_535) {
        throw new IllegalArgumentException(
            "sentinel.mqtt.receive-maximum is " + receiveMaximum + ": 1 to 65535");
      }
    }
  }

  /**
   * A message that arrived, on the client's thread; {@code acknowledge} releases it to the broker
   * (once per message; the client sends acknowledgements in the order messages arrived).
   */
  @FunctionalInterface
  public interface Inbound {
    void message(String topic, byte[] payload, Delivery delivery, Runnable acknowledge);
  }

  /**
   * How a message reached the gateway (docs/live.md): {@code retained}, the broker's RETAIN flag
   * (the last value kept for the topic, handed over at subscribe; Moquette never sets it); {@code
   * backlog}, delivered before this connect's {@link BacklogMarker} came back (queued while the
   * gateway was away, or retained).
   */
  public record Delivery(boolean retained, boolean backlog) {
    public static final Delivery LIVE = new Delivery(false, false);
  }

  /** What the connection tells its owner; called on the client's own threads. */
  public interface Listener {
    void connected();

    void disconnected(String cause);

    /** A backlog drain begins (a connect) or ends (its marker came back). */
    default void draining(boolean draining) {}
  }

  private record Pending(String topic, byte[] payload) {}

  private final MqttSession session;
  private final Settings settings;
  private final String statusTopic;
  private final Supplier<byte[]> onlineStatus;
  private final byte[] offlineStatus;
  private final Collection<String> filters;
  private final Listener listener;
  private final BrokerReachability reachability = new BrokerReachability();
  private final Object lock = new Object();
  private final Map<String, byte[]> retained = new ConcurrentHashMap<>();
  private final ArrayDeque<Pending> offline = new ArrayDeque<>();
  private final AtomicBoolean subscribed = new AtomicBoolean();
  private final AtomicLong droppedEvents = new AtomicLong();
  private volatile boolean connected;
  private volatile boolean everConnected;
  private volatile boolean stopping;
  private volatile String lastFailure;
  private final BacklogMarker marker;
  private final Outbound outbound = new Outbound(Outbound.QUEUE_LIMIT);
  private volatile boolean readingPaused;
  private final Settling settling = new Settling();
  private final ClientBacklog backlog = new ClientBacklog();

  /**
   * @param filters what to subscribe to (QoS 1), once, on the first connect; the persistent session
   *     keeps them, and the client subscribes again when a broker lost the session
   * @param inbound every message that arrives, on the client's thread; acknowledged manually: the
   *     consumer runs the acknowledgement once per message, when it may be forgotten (the client
   *     sends the PUBACKs in the order the messages arrived, so one never acknowledged holds back
   *     every later one)
   * @param markerTopic the backlog marker's topic (subscribed with the filters; docs/live.md):
   *     without one, nothing delivered is taken as backlog
   */
  public MqttConnection(
      Settings settings,
      String statusTopic,
      Supplier<byte[]> onlineStatus,
      byte[] offlineStatus,
      Collection<String> filters,
      Inbound inbound,
      Listener listener,
      Optional<String> markerTopic) {
    this.marker =
        markerTopic
            .map(t -> new BacklogMarker(t, settings.keepAlive(), listener::draining))
            .orElse(null);
    if (markerTopic.isPresent()) {
      List<String> all = new ArrayList<>(filters);
      all.add(markerTopic.get());
      filters = all;
    }
    this.settings = settings;
    this.statusTopic = statusTopic;
    this.onlineStatus = onlineStatus;
    this.offlineStatus = offlineStatus;
    this.filters = List.copyOf(filters);
    this.listener = listener;
    MqttClients.Hooks hooks =
        new MqttClients.Hooks(
            this::onConnected,
            this::onDisconnected,
            (topic, payload, retain, ack) ->
                receive(inbound, topic, payload, retain, settling.counting(ack)));
    this.session = new MqttSession(settings, statusTopic, offlineStatus, hooks);
    settling.queueWith(ReadPause.behindClientTasks(session.config()));
  }

  /**
   * A client of the broker at {@code url}: {@code tcp://} (1883 by default), {@code ssl://} or
   * {@code mqtts://} (TLS, 8883), credentials from {@code user:password@} ({@link MqttClients}).
   */
  public static Mqtt3ClientBuilder builder(URI url, String clientId) {
    return MqttClients.builder3(url, clientId, Optional.empty());
  }

  /** {@link #builder(URI, String)}, TLS trusting the CA certificates of {@code caFile} (PEM). */
  public static Mqtt3ClientBuilder builder(
      URI url, String clientId, Optional<java.nio.file.Path> caFile) {
    return MqttClients.builder3(url, clientId, caFile);
  }

  /** Connects in the background; failures are retried with backoff. */
  public void start() {
    session
        .connect()
        .whenComplete(
            (ack, error) -> {
              if (error != null) {
                // Said by onDisconnected, which hears this attempt and every retry.
                LOG.debugf(
                    "first connect to %s failed: %s",
                    redacted(), BrokerTls.describe(error, redacted()));
              }
            });
  }

  public boolean connected() {
    return connected;
  }

  /** A command: QoS 1, not retained; the future completes when the broker acknowledged it. */
  public CompletableFuture<?> publishCommand(String topic, byte[] payload) {
    return send(topic, payload, false);
  }

  /** A command in a device's own convention (docs/devices.md): its QoS (0, 1, 2) and retain. */
  public CompletableFuture<?> publishCommand(
      String topic, byte[] payload, int qos, boolean retain) {
    return send(topic, payload, MqttQos.fromCode(qos), retain);
  }

  /** Retained state: the latest value per topic also survives the broker's absence. */
  public void publishRetained(String topic, byte[] payload) {
    retained.put(topic, payload);
    if (connected) {
      send(topic, payload, true);
    }
  }

  /** An event: published now, or after the next connect (bounded). */
  public void publishEvent(String topic, byte[] payload) {
    synchronized (lock) {
      if (!connected) {
        if (offline.size() >= settings.offlineEventLimit()) {
          offline.removeFirst();
          droppedEvents.incrementAndGet();
        }
        offline.addLast(new Pending(topic, payload));
        return;
      }
    }
    send(topic, payload, false);
  }

  /** Events dropped because the broker was away longer than the offline queue holds. */
  public long droppedEvents() {
    return droppedEvents.get();
  }

  /**
   * Says offline (a clean disconnect sends no will), then disconnects; true when the broker took
   * the DISCONNECT, and with it (sent before it on the one connection) every PUBACK handed to the
   * client.
   */
  public boolean stop(Duration wait) {
    stopping = true;
    try {
      if (connected) {
        send(statusTopic, offlineStatus, true).get(wait.toMillis(), TimeUnit.MILLISECONDS);
      }
      session.disconnect().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception e) {
      LOG.debugf("disconnect: %s", e.getMessage());
      return false;
    } finally {
      outbound.close();
    }
  }

  private CompletableFuture<?> send(String topic, byte[] payload, boolean retain) {
    return send(topic, payload, MqttQos.AT_LEAST_ONCE, retain);
  }

  private CompletableFuture<?> send(String topic, byte[] payload, MqttQos qos, boolean retain) {
    return outbound.send(() -> session.send(topic, payload, qos, retain));
  }

  /**
   * Stops ({@code true}) or resumes reading from the broker, on this connection and on every later
   * one until resumed (the gateway's intake bound, docs/runtime.md "Overload"): the broker's
   * messages then wait in its own memory and the sockets' buffers, not in the gateway's heap.
   * Returns whether a connection was there to pause.
   */
  public boolean pauseReading(boolean pause) {
    readingPaused = pause;
    return ReadPause.apply(session.config(), pause);
  }

  /**
   * Messages the gateway acknowledged that the client has not acknowledged to the broker yet
   * ({@link Settling}): the intake bound counts them with those waiting for the journal.
   */
  public long unsettled() {
    return settling.unsettled();
  }

  /** Runs {@code check} after each acknowledgement the client acted on (the intake bound's). */
  public void onSettled(Runnable check) {
    settling.onSettled(check);
  }

  /**
   * Messages the client read and decoded that the gateway has not been handed yet ({@link
   * ClientBacklog}): the intake bound counts them too.
   */
  public long undelivered() {
    return backlog.waiting();
  }

  /** Runs {@code check} after each message the client decoded (the intake bound's). */
  public void onDecoded(Runnable check) {
    backlog.onArrived(check);
  }

  /** The client's internal configuration (tests queue tasks on its event loop with it). */
  Object clientConfig() {
    return session.config();
  }

  /** Outgoing publishes waiting for room (none is handed to the client past its bound). */
  public int outboundWaiting() {
    return outbound.waiting();
  }

  /**
   * Whether the connected channel's event loop is {@code loop}'s (the engine's, {@link
   * SharedEventLoop}); false while none is connected.
   */
  public boolean readsOn(io.netty.channel.EventLoop loop) {
    try {
      io.netty.channel.Channel channel = ReadPause.channel(session.config());
      return channel != null && channel.eventLoop() == loop;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  /** Outgoing publishes refused because the queue for them was full. */
  public long outboundRefused() {
    return outbound.refused();
  }

  /** A message: this connect's backlog marker ends the drain; anything else goes inbound. */
  private void receive(
      Inbound inbound, String topic, byte[] payload, boolean retain, Runnable acknowledge) {
    backlog.handedOver();
    if (marker == null) {
      inbound.message(topic, payload, new Delivery(retain, false), acknowledge);
      return;
    }
    marker.arrived();
    if (topic.equals(marker.topic())) {
      acknowledge.run();
      marker.returned(payload);
      return;
    }
    inbound.message(topic, payload, new Delivery(retain, marker.draining()), acknowledge);
  }

  /**
   * The subscriptions, once, on the first connect (the persistent session keeps them; a broker that
   * lost it gets them again from the client, resubscribeIfSessionExpired). A session the broker
   * kept has a queued backlog: the marker goes behind it (and behind the retained messages of the
   * first subscription, sent before it). A session the broker did not keep has no queue to drain
   * (docs/live.md).
   */
  private void onConnected(boolean sessionPresent) {
    FlushBatching.install(session.config());
    backlog.install(session.config());
    CompletableFuture<?> subscribing =
        subscribed.compareAndSet(false, true)
            ? session.subscribe(filters)
            : CompletableFuture.completedFuture(null);
    // Online once the gateway can hear: in a new session after the SUBACK (a device that sees the
    // status may publish at once); at once in a session the broker kept, whose subscriptions are
    // there already and whose SUBACK waits behind the queued backlog.
    CompletableFuture<?> hearing =
        sessionPresent ? CompletableFuture.completedFuture(null) : subscribing;
    if (marker != null && sessionPresent) {
      // Not after the SUBACK: the session already has the marker's subscription, and a broker
      // handles a client's packets in order, so the marker follows the subscription's retained
      // messages anyway, and the window in which a fresh message counts as backlog stays short.
      send(marker.topic(), marker.connected(), false);
    } else if (marker != null) {
      marker.nothingQueued();
    }
    if (readingPaused) {
      pauseReading(true); // a new connection reads until told otherwise
    }
    List<Pending> queued;
    synchronized (lock) {
      connected = true;
      queued = new ArrayList<>(offline);
      offline.clear();
    }
    boolean wasUnreachable = reachability.reached();
    LOG.infof(
        "SEN-013 connected to %s as %s%s (%s)",
        redacted(),
        settings.clientId(),
        everConnected ? " again" : wasUnreachable ? " (reachable now)" : "",
        session.window());
    everConnected = true;
    hearing.whenComplete(
        (ack, failed) -> {
          if (connected) {
            send(statusTopic, onlineStatus.get(), true);
          }
        });
    retained.forEach((topic, payload) -> send(topic, payload, true));
    queued.forEach(p -> send(p.topic(), p.payload(), false));
    listener.connected();
  }

  /** Why the last attempt to connect failed, or the connection was lost; empty before any. */
  public Optional<String> lastFailure() {
    return Optional.ofNullable(lastFailure);
  }

  private void onDisconnected(Throwable cause) {
    if (cause != null && !stopping) {
      lastFailure = BrokerTls.describe(cause, redacted());
    }
    boolean was = connected;
    if (marker != null) {
      marker.lost();
    }
    synchronized (lock) {
      connected = false;
    }
    String reason = BrokerTls.reason(cause);
    String described = cause == null ? "closed" : BrokerTls.describe(cause, redacted());
    if (was && !stopping) {
      LOG.warnf(
          "SEN-014 lost the MQTT broker at %s (%s); reconnecting with backoff, commands wait",
          redacted(), described);
      reachability.failed(described);
    } else if (!was && !stopping) {
      // A connect attempt failed: said when it is news, not at every retry.
      reachability
          .failed(described)
          .ifPresent(
              r ->
                  LOG.warnf(
                      "SEN-011 cannot reach the MQTT broker at %s: %s; retrying with backoff up"
                          + " to %s, said again when the reason changes; the engine runs meanwhile",
                      redacted(), r, settings.reconnectMax()));
    }
    if (was) {
      listener.disconnected(reason);
    }
  }

  /** The broker's address without credentials: what logs and /q/health may show. */
  public String redacted() {
    URI u = settings.url();
    return u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
  }
}
