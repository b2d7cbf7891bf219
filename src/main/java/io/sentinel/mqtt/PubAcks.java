package io.sentinel.mqtt;

import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedContext;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The session's PUBACKs, sent in batches (issue 24: at 10,000 samples/s one send a PUBACK was 5,000
 * {@code sendto} calls a second). HiveMQ's manual acknowledgement hands each acknowledgement to the
 * client's event loop as a task of its own and writes and flushes each PUBACK alone. Here the
 * acknowledgements run together (the engine releases a whole journal sync's at once) are queued,
 * and one task on the connection's event loop runs them all; a {@link FlushConsolidationHandler} at
 * the head of the connection's pipeline then sends what they wrote with one flush. Nothing is
 * acknowledged earlier than before: an acknowledgement is queued only when its consumer runs it.
 *
 * <p>The connection's channel is HiveMQ's internal {@code MqttClientConnectionConfig}'s: a client
 * version without it acknowledges one by one, as HiveMQ does itself (said once at debug level).
 */
final class PubAcks {
  private static final Logger LOG = Logger.getLogger(PubAcks.class);
  static final String HANDLER = "sentinel-flush-consolidation";

  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicLong drains =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile EventLoop loop;

  /** The acknowledgement of one message, for the consumer to run once. */
  Runnable of(Runnable acknowledge) {
    return () -> {
      EventLoop l = loop;
      if (l == null) {
        acknowledge.run();
        return;
      }
      queue.add(acknowledge);
      if (scheduled.compareAndSet(false, true)) {
        try {
          l.execute(this::drain);
        } catch (RejectedExecutionException e) {
          drain(); // the client's event loop is shutting down: HiveMQ decides what still goes
        }
      }
    };
  }

  /** A connect: its channel's event loop runs the acknowledgements, its flushes consolidated. */
  void connected(MqttClientConnectedContext ctx) {
    try {
      consolidate(ctx);
    } catch (RuntimeException e) {
      LOG.debugf("PUBACKs are flushed one by one: %s", e.toString());
      loop = null;
    }
  }

  private void consolidate(MqttClientConnectedContext ctx) {
    Object config = ctx.getClientConfig().getConnectionConfig().orElse(null);
    if (!(config instanceof com.hivemq.client.internal.mqtt.MqttClientConnectionConfig c)) {
      LOG.debugf("no channel in %s: PUBACKs are flushed one by one", config);
      loop = null;
      return;
    }
    Channel channel = c.getChannel();
    if (channel.pipeline().get(HANDLER) == null) {
      // Flushes within one run of the event loop (and within a read) are one write to the socket.
      channel.pipeline().addFirst(HANDLER, new FlushConsolidationHandler(256, true));
    }
    runOn(channel.eventLoop());
  }

  /** From now on the acknowledgements run on {@code l} (a connection's event loop). */
  void runOn(EventLoop l) {
    loop = l;
    // Left by the last connection (its event loop may never have run them): run on this one, where
    // HiveMQ sends nothing for a message of an earlier connection.
    scheduled.set(false);
    if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
      l.execute(this::drain);
    }
  }

  /** The connection is gone: what is run from now on goes to HiveMQ at once. */
  void disconnected() {
    loop = null;
  }

  /** Tasks run on the event loop so far, each running what was queued before it. */
  long drains() {
    return drains.get();
  }

  private void drain() {
    drains.incrementAndGet();
    scheduled.set(false); // before polling: what is queued after this schedules the next drain
    for (Runnable a; (a = queue.poll()) != null; ) {
      try {
        a.run();
      } catch (RuntimeException e) {
        LOG.warnf("SEN-023 an MQTT message could not be acknowledged: %s", e.getMessage());
      }
    }
  }
}
