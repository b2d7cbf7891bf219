package io.sentinel.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a PostgreSQL that holds every connection silent for a while before it
 * relays: a server that is there but slow to give its first answer (a cold connection on a loaded
 * machine), for the journal's start.
 */
final class SlowServer implements AutoCloseable {
  private final ServerSocket listener;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  SlowServer(String host, int port, Duration hold) throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket client = listener.accept();
                  open.add(client);
                  Thread relay = new Thread(() -> relay(client, host, port, hold), "slow-relay");
                  relay.setDaemon(true);
                  relay.start();
                } catch (IOException e) {
                  return; // closed
                }
              }
            },
            "slow-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  private void relay(Socket client, String host, int port, Duration hold) {
    try {
      Thread.sleep(hold.toMillis());
      Socket server = new Socket(host, port);
      open.add(server);
      Thread back = new Thread(() -> pump(server, client), "slow-back");
      back.setDaemon(true);
      back.start();
      pump(client, server);
    } catch (IOException | InterruptedException e) {
      // the test is over
    }
  }

  private static void pump(Socket from, Socket to) {
    byte[] buf = new byte[8192];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
