package io.sentinel.mqtt;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The embedded broker's front door: relays each connection to Moquette unchanged except for one
 * bit, the DUP flag of a PUBLISH a client sends. Moquette 0.17 takes a QoS 1 or 2 PUBLISH with DUP
 * set for its own retry of a routing that failed, and routes it only to the subscribers that
 * routing missed; when there is none on record (the usual case: a client sending again after a
 * reconnect what the broker never acknowledged) it routes the message to no one, and where a
 * subscription matches it throws in its session loop ({@code increment: 0}), which ends that loop
 * and leaves every client it serves without PUBACK or message (fixed in Moquette 0.18, #777, not
 * served here). Without the flag the message is routed as new: at least once, as MQTT promises. The
 * flag tells a receiver nothing it may rely on (MQTT 3.1.1, 3.3.1.1).
 */
final class DupClearingRelay implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(DupClearingRelay.class);

  private final ServerSocket listening;
  private final SocketAddress broker;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** Takes connections on {@code listening} (bound) and relays each to {@code broker}. */
  DupClearingRelay(ServerSocket listening, InetSocketAddress broker) {
    this.listening = listening;
    this.broker = broker;
    Thread accept = new Thread(this::accept, "sentinel-embedded-broker-door");
    accept.setDaemon(true);
    accept.start();
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = listening.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warnf("the embedded broker's door stopped taking connections: %s", e);
        }
        return;
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(broker, 5_000);
      } catch (IOException e) {
        // Moquette is starting again (a failed session loop): the client reconnects.
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      open.add(client);
      open.add(upstream);
      pump(client, upstream, true);
      pump(upstream, client, false);
    }
  }

  private void pump(Socket from, Socket to, boolean clearDup) {
    Thread t =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                Packets packets = new Packets();
                byte[] buffer = new byte[16 * 1024];
                int n;
                while ((n = in.read(buffer)) > 0) {
                  if (clearDup) {
                    packets.clearDup(buffer, n);
                  }
                  out.write(buffer, 0, n); // a socket's stream: written through, no flush
                }
              } catch (IOException e) {
                // one side went: both are closed below, and the client reconnects
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "sentinel-embedded-broker-relay");
    t.setDaemon(true);
    t.start();
  }

  /** Every relayed connection ends (Moquette stopped): the clients reconnect. */
  void dropConnections() {
    open.forEach(DupClearingRelay::closeQuietly);
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listening);
    dropConnections();
  }

  static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing: nothing to tell
    }
  }

  /**
   * Where a client's byte stream is between MQTT packets: a fixed header's first byte, its
   * remaining length (1 to 4 bytes, 7 bits each), then that many bytes to pass.
   */
  static final class Packets {
    private static final int FIRST_BYTE = 0;
    private static final int LENGTH = 1;
    private static final int BODY = 2;

    private int state = FIRST_BYTE;
    private int length;
    private int shift;
    private long left;

    /** Clears the DUP bit (0x08) of each PUBLISH (type 3) starting in {@code bytes[0, n)}. */
    void clearDup(byte[] bytes, int n) {
      int i = 0;
      while (i < n) {
        switch (state) {
          case FIRST_BYTE -> {
            if ((bytes[i] & 0xF0) == 0x30) {
              bytes[i] &= (byte) ~0x08;
            }
            length = 0;
            shift = 0;
            state = LENGTH;
            i++;
          }
          case LENGTH -> {
            int b = bytes[i++] & 0xFF;
            length |= (b & 0x7F) << shift;
            shift += 7;
            if ((b & 0x80) == 0 || shift >= 28) {
              left = length;
              state = left == 0 ? FIRST_BYTE : BODY;
            }
          }
          default -> {
            int skip = (int) Math.min(left, n - i);
            i += skip;
            left -= skip;
            if (left == 0) {
              state = FIRST_BYTE;
            }
          }
        }
      }
    }
  }
}
