package io.sentinel.mqtt;

import com.hivemq.client.internal.mqtt.MqttClientConfig;
import com.hivemq.client.internal.mqtt.MqttClientConnectionConfig;
import io.netty.channel.Channel;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * Stops and resumes reading from the broker on the HiveMQ client's Netty channel ({@code
 * autoRead}). The client offers no such call: it takes whatever the broker sends inside the Receive
 * Maximum and queues it in its own memory. With reading stopped the kernel's socket buffers fill,
 * then the broker's writes to the gateway wait and it keeps the messages itself (inside its window
 * for the session; past it, up to its queue limits). Reached through the client's internal config
 * (HiveMQ 1.3: {@code MqttClientConfig.getRawConnectionConfig().getChannel()}; the MQTT 3.1.1 view
 * wraps it as {@code delegate}); a client without it cannot be paused, which is said once. The same
 * internal config queues {@link Settling}'s tasks on the client's event loop.
 */
final class ReadPause {
  private static final Logger LOG = Logger.getLogger(ReadPause.class);
  private static final AtomicBoolean SAID = new AtomicBoolean();

  private ReadPause() {}

  /** Returns whether a connected channel was there to pause or resume. */
  static boolean apply(Object clientConfig, boolean pause) {
    try {
      Channel channel = channel(clientConfig);
      if (channel == null) {
        return false;
      }
      channel.config().setAutoRead(!pause);
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      if (SAID.compareAndSet(false, true)) {
        LOG.warnf(
            "SEN-047 the MQTT client's reading cannot be paused (%s): the intake bound"
                + " (sentinel.ingest.max-held) cannot hold the broker back; the Receive Maximum"
                + " bounds what the gateway holds",
            e.toString());
      }
      return false;
    }
  }

  /**
   * Queues a task on the client's event loop, behind every task already there (the client's
   * handling of acknowledgements among them: {@link Settling}); false when it cannot (no event
   * loop, or a client without this internal): the caller then runs it itself. The client's internal
   * config is looked up once, here, not for every acknowledgement.
   */
  static Predicate<Runnable> behindClientTasks(Object clientConfig) {
    MqttClientConfig config;
    try {
      config = internal(clientConfig);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return task -> false;
    }
    return config::executeInEventLoop;
  }

  /** The connected channel under the client's config; null while none is connected. */
  static Channel channel(Object clientConfig) throws ReflectiveOperationException {
    MqttClientConnectionConfig connection = internal(clientConfig).getRawConnectionConfig();
    return connection == null ? null : connection.getChannel();
  }

  private static MqttClientConfig internal(Object clientConfig)
      throws ReflectiveOperationException {
    Object config = clientConfig;
    if (!(config instanceof MqttClientConfig)) {
      Field delegate = config.getClass().getDeclaredField("delegate");
      delegate.setAccessible(true);
      config = delegate.get(config);
    }
    return (MqttClientConfig) config;
  }
}
