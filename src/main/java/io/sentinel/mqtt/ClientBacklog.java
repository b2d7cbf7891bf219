package io.sentinel.mqtt;

import com.hivemq.client.internal.mqtt.codec.decoder.MqttDecoder;
import com.hivemq.client.internal.mqtt.message.publish.MqttStatefulPublish;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Messages the HiveMQ client has read and decoded but not yet handed to the gateway. The client
 * queues what the broker sends inside the Receive Maximum in its own memory and hands it over as
 * its callback's executor runs; on the engine's own event loop ({@link SharedEventLoop}) the reads
 * run ahead of those hand-overs, and a flood filled the 48 MB heap before the intake bound, which
 * counted a message only once handed over, paused reading (docs/load.md, session 19). Counted here,
 * at the decoder's output in the connection's pipeline, the intake bound sees them at once and
 * pauses reading inside the read that crossed it.
 *
 * <p>Every error of the count errs low, so that it never holds reading paused: a message sent again
 * (DUP) is not counted, because the client drops one whose first sending it still holds (Mosquitto
 * 2.0.11 resends on one connection under lagging acknowledgements, docs/persistence.md); a
 * hand-over at zero leaves zero; and the count starts again at each connection, because what a lost
 * connection had decoded may never be handed over.
 */
final class ClientBacklog {
  private static final Logger LOG = Logger.getLogger(ClientBacklog.class);
  static final String NAME = "sentinel-client-backlog";

  private final AtomicLong waiting = new AtomicLong();
  private volatile Runnable arrived = () -> {};

  /** What runs after each message decoded (the intake bound's check), on the client's thread. */
  void onArrived(Runnable check) {
    arrived = check;
  }

  /** Decoded and not yet handed over. */
  long waiting() {
    return waiting.get();
  }

  /** A message handed to the gateway. */
  void handedOver() {
    waiting.updateAndGet(w -> w > 0 ? w - 1 : 0);
  }

  /**
   * Counts on the connected channel from now on; returns whether there was one to count on (a
   * client without the internals {@link ReadPause} reaches is not counted: logged at debug level).
   */
  boolean install(Object clientConfig) {
    try {
      Channel channel = ReadPause.channel(clientConfig);
      if (channel == null) {
        return false;
      }
      waiting.set(0);
      if (channel.pipeline().get(NAME) == null) {
        channel.pipeline().addAfter(MqttDecoder.NAME, NAME, counting());
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.debugf("the MQTT client's decoded messages are not counted: %s", e);
      return false;
    }
  }

  /** The handler that counts, for a connection's pipeline. */
  ChannelHandler counting() {
    return new Counting();
  }

  private final class Counting extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      boolean publish = msg instanceof MqttStatefulPublish p && !p.isDup();
      if (publish) {
        waiting.incrementAndGet();
      }
      ctx.fireChannelRead(msg);
      if (publish) {
        arrived.run();
      }
    }
  }
}
