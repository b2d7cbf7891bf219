package io.sentinel.runtime;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A service manager's notification socket for tests: a Unix datagram socket bound by a Python
 * process (a peer independent of the JNA sender), each datagram one line, its newlines as "|".
 */
final class NotifySocket implements AutoCloseable {
  private static final String RECEIVER =
      """
      import socket, sys
      s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
      s.bind(sys.argv[1])
      print("bound", flush=True)
      while True:
          print(s.recv(4096).decode().replace("\\n", "|"), flush=True)
      """;

  final Path path;
  private final Process receiver;
  private final List<String> datagrams = new CopyOnWriteArrayList<>();

  NotifySocket(Path dir) throws IOException, InterruptedException {
    assumeTrue(onPath("python3"), "python3 (the test's datagram receiver) is not installed");
    path = dir.resolve("notify.sock");
    receiver =
        new ProcessBuilder("python3", "-c", RECEIVER, path.toString())
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(
            new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
    String first = out.readLine();
    if (!"bound".equals(first)) {
      throw new IOException("the datagram receiver did not start: " + first);
    }
    Thread reader =
        new Thread(
            () -> {
              try {
                for (String line; (line = out.readLine()) != null; ) {
                  datagrams.add(line);
                }
              } catch (IOException e) {
                // the receiver was stopped
              }
            },
            "notify-socket");
    reader.setDaemon(true);
    reader.start();
  }

  List<String> datagrams() {
    return List.copyOf(datagrams);
  }

  /** Waits until {@code count} datagrams have arrived, or {@code within}; returns them all. */
  List<String> await(int count, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    while (datagrams.size() < count && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    return datagrams();
  }

  @Override
  public void close() throws IOException {
    receiver.destroy();
    Files.deleteIfExists(path);
  }

  private static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
