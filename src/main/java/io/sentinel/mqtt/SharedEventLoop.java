package io.sentinel.mqtt;

import io.netty.channel.EventLoop;
import io.netty.channel.MultithreadEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One event loop of somebody else's (the engine's Vert.x context) offered to the HiveMQ client as
 * its Netty executor: the client then reads, decodes and acknowledges on the thread that runs the
 * passes, with no hand-off between the two. HiveMQ takes a {@link MultithreadEventLoopGroup} as it
 * is and asks it for {@code next()}; this group has that one loop as its only child and never shuts
 * it down (the client "releases" its group when it is closed; the loop is not the client's).
 */
public final class SharedEventLoop extends MultithreadEventLoopGroup {
  private static final ThreadLocal<EventLoop> CHILD = new ThreadLocal<>();

  private SharedEventLoop() {
    super(1, (Executor) null);
  }

  /**
   * The group for {@code loop}, when the client would open a channel of the loop's kind (HiveMQ
   * opens an epoll channel whenever epoll is available, else NIO); empty when the two differ.
   */
  public static Optional<Executor> of(EventLoop loop) {
    boolean epoll = loop.parent() instanceof EpollEventLoopGroup;
    boolean nio = loop.parent() instanceof NioEventLoopGroup;
    if (!(epoll && Epoll.isAvailable() || nio && !Epoll.isAvailable())) {
      return Optional.empty();
    }
    CHILD.set(loop);
    try {
      return Optional.of(new SharedEventLoop());
    } finally {
      CHILD.remove();
    }
  }

  @Override
  protected EventLoop newChild(Executor executor, Object... args) {
    return CHILD.get();
  }

  @Override
  public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
    return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
  }
}
