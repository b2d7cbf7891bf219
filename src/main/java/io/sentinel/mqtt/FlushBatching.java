package io.sentinel.mqtt;

import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import org.jboss.logging.Logger;

/**
 * One socket write for the PUBACKs a durable pass releases together. The HiveMQ client flushes each
 * acknowledgement on its own ({@code writeAndFlush}), so at 10,000 samples/s it made 10,000 {@code
 * send} calls a second: a third of its Netty thread's CPU (docs/load.md). Netty's {@link
 * FlushConsolidationHandler} at the head of the connection's pipeline turns the flushes of one
 * event-loop task (the client's drain of acknowledgements, or one read) into one; nothing waits for
 * a timer, so no acknowledgement or command leaves later than the task that wrote it. Installed on
 * each connection, through the client's internal config as {@link ReadPause} reaches it; a client
 * without that internal keeps a flush per acknowledgement (logged at debug level).
 */
final class FlushBatching {
  private static final Logger LOG = Logger.getLogger(FlushBatching.class);
  static final String NAME = "sentinel-flush-batching";

  private FlushBatching() {}

  /** Returns whether the connected channel now batches its flushes. */
  static boolean install(Object clientConfig) {
    try {
      Channel channel = ReadPause.channel(clientConfig);
      if (channel == null) {
        return false;
      }
      if (channel.pipeline().get(NAME) == null) {
        channel
            .pipeline()
            .addFirst(
                NAME,
                new FlushConsolidationHandler(
                    FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.debugf("the MQTT client's flushes are not batched: %s", e);
      return false;
    }
  }
}
