package io.sentinel.runtime;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP link between the gateway and its broker on which the broker's side passes at most a set
 * number of MQTT PUBLISH packets a second: a gateway on a slow uplink, whose drain of a queued
 * backlog takes longer than a warmup deadline. Every packet keeps its place in the stream (a
 * PINGRESP or SUBACK waits behind the PUBLISHes ahead of it, as on a real link); only PUBLISHes are
 * paced. The gateway's side passes as it comes. Unpaced until {@link #publishesPerSecond} is set.
 *
 * <p>{@link #raw} makes one for any protocol (a database's), bytes passed as they come. Either kind
 * can go silent ({@link #stall}: nothing passes either way, every connection stays open, as on a
 * network that drops everything) and come back with its old connections reset ({@link #reset}).
 */
final class SlowLink implements AutoCloseable {
  private static final int PUBLISH = 3;

  private final ServerSocket server;
  private final String brokerHost;
  private final int brokerPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicLong publishes = new AtomicLong();
  private final boolean mqtt;
  private volatile long spacingNanos;
  private volatile boolean stalled;

  /** Listens on a free loopback port and connects each client to {@code brokerUrl}. */
  SlowLink(String brokerUrl) throws IOException {
    this(URI.create(brokerUrl).getHost(), URI.create(brokerUrl).getPort(), true);
  }

  private SlowLink(String host, int port, boolean mqtt) throws IOException {
    this.brokerHost = host;
    this.brokerPort = port;
    this.mqtt = mqtt;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "slow-link-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A link to {@code host:port} that passes bytes as they come, whatever the protocol. */
  static SlowLink raw(String host, int port) throws IOException {
    return new SlowLink(host, port, false);
  }

  String url() {
    return "tcp://127.0.0.1:" + server.getLocalPort();
  }

  int port() {
    return server.getLocalPort();
  }

  /**
   * From now on nothing passes, either way, on any connection (what was read is held); the
   * connections stay open, so neither end hears of it but by its own timeouts.
   */
  void stall() {
    stalled = true;
  }

  /**
   * The network back: every connection of the link closed (each end sees it reset), new ones pass.
   */
  void reset() {
    sockets.forEach(SlowLink::closeQuietly);
    sockets.clear();
    stalled = false;
  }

  /** From now on, the broker's PUBLISHes reach the client at most {@code rate} a second. */
  void publishesPerSecond(double rate) {
    spacingNanos = rate <= 0 ? 0 : (long) (1e9 / rate);
  }

  /** The PUBLISH packets passed to clients so far. */
  long publishes() {
    return publishes.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket broker = new Socket(brokerHost, brokerPort);
        client.setTcpNoDelay(true);
        broker.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(broker);
        start("slow-link-up", () -> copy(client, broker));
        start("slow-link-down", () -> down(broker, client));
      } catch (IOException e) {
        // closed, or the broker refused this one connection: the client sees it closed and retries
      }
    }
  }

  private static void start(String name, Runnable task) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    t.start();
  }

  private void down(Socket from, Socket to) {
    if (mqtt) {
      pace(from, to);
    } else {
      copy(from, to);
    }
  }

  private void copy(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        awaitFlowing(to);
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side went away: both are closed below
    } finally {
      awaitFlowing(to); // a silent link passes no close either
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /**
   * Passes whole MQTT packets in order, each PUBLISH at the earliest one spacing after the last.
   */
  private void pace(Socket from, Socket to) {
    try {
      DataInputStream in = new DataInputStream(new BufferedInputStream(from.getInputStream()));
      OutputStream out = new BufferedOutputStream(to.getOutputStream());
      long due = System.nanoTime();
      for (int first; (first = in.read()) >= 0; ) {
        byte[] header = new byte[5];
        header[0] = (byte) first;
        int length = 0;
        int used = 1;
        for (int shift = 0, b = 0x80; (b & 0x80) != 0; shift += 7) {
          b = in.readUnsignedByte();
          header[used++] = (byte) b;
          length |= (b & 0x7F) << shift;
        }
        byte[] body = new byte[length];
        in.readFully(body);
        long spacing = spacingNanos;
        boolean paced = (first >> 4) == PUBLISH && spacing > 0;
        if (paced) {
          due = Math.max(due, System.nanoTime());
          for (long wait; (wait = due - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(wait);
          }
          due += spacing;
        }
        awaitFlowing(to);
        out.write(header, 0, used);
        out.write(body);
        if ((first >> 4) == PUBLISH) {
          publishes.incrementAndGet();
        }
        if (paced || in.available() == 0) {
          out.flush();
        }
      }
    } catch (IOException e) {
      // one side went away: both are closed below
    } finally {
      awaitFlowing(to); // a silent link passes no close either
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /** While the link is stalled and {@code to} still open. */
  private void awaitFlowing(Socket to) {
    while (stalled && !to.isClosed()) {
      LockSupport.parkNanos(1_000_000L);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    sockets.forEach(SlowLink::closeQuietly);
  }
}
