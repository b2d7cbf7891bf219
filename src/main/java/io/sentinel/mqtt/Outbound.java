package io.sentinel.mqtt;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The gateway's outgoing publishes, never blocking who publishes (the engine's context). The HiveMQ
 * client blocks the publishing thread once 64 of its publishes await the broker's acknowledgement
 * ({@code MqttPublishFlowables.add}, {@code MAX_CONCURRENT_PUBLISH_FLOWABLES}): under overload,
 * with the broker slow to acknowledge or the gateway not reading (the intake bound), that held the
 * engine for seconds. So at most {@link #IN_CLIENT} are handed to the client at once; the rest wait
 * here in order, up to a bound past which a publish fails at once (counted: a command fails, and
 * the command plane says so; retained state is published again at the next connect).
 */
final class Outbound {
  /** Publishes in the client at once: under its 64, with room for the few sent around this. */
  static final int IN_CLIENT = 48;

  /** Publishes waiting for room at most (a few MB of topics and payloads). */
  static final int QUEUE_LIMIT = 10_000;

  private record Waiting(Supplier<CompletableFuture<?>> publish, CompletableFuture<Object> done) {}

  private final int limit;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private int inClient;
  private long refused;
  private final ExecutorService pump =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sentinel-mqtt-outbound");
            t.setDaemon(true);
            return t;
          });

  Outbound(int limit) {
    this.limit = limit;
  }

  /** Hands {@code publish} to the client now if there is room, else queues it (any thread). */
  CompletableFuture<?> send(Supplier<CompletableFuture<?>> publish) {
    CompletableFuture<Object> done = new CompletableFuture<>();
    Waiting w = new Waiting(publish, done);
    synchronized (this) {
      if (inClient >= IN_CLIENT || !waiting.isEmpty()) {
        if (waiting.size() >= limit) {
          refused++;
          done.completeExceptionally(
              new IllegalStateException(
                  "the MQTT outbound queue is full (" + limit + " publishes wait for the broker)"));
          return done;
        }
        waiting.addLast(w);
        return done;
      }
      inClient++;
    }
    hand(w);
    return done;
  }

  /** Stops the pump's thread; what still waits fails, said to whoever waits for it. */
  void close() {
    List<Waiting> left;
    synchronized (this) {
      left = List.copyOf(waiting);
      waiting.clear();
    }
    pump.shutdown();
    left.forEach(
        w ->
            w.done()
                .completeExceptionally(
                    new IllegalStateException("the MQTT connection stopped before this publish")));
  }

  synchronized int waiting() {
    return waiting.size();
  }

  synchronized long refused() {
    return refused;
  }

  private void hand(Waiting w) {
    CompletableFuture<?> sent;
    try {
      sent = w.publish().get();
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete(
        (result, error) -> {
          boolean more;
          synchronized (this) {
            inClient--;
            more = !waiting.isEmpty();
          }
          if (error != null) {
            w.done().completeExceptionally(error);
          } else {
            w.done().complete(result);
          }
          if (more && !pump.isShutdown()) {
            // On the pump's own thread: a completion that runs inside hand() must not recurse.
            try {
              pump.execute(this::drain);
            } catch (java.util.concurrent.RejectedExecutionException e) {
              // closed meanwhile: close() failed what waited
            }
          }
        });
  }

  private void drain() {
    while (true) {
      Waiting next;
      synchronized (this) {
        if (inClient >= IN_CLIENT || waiting.isEmpty()) {
          return;
        }
        next = waiting.pollFirst();
        inClient++;
      }
      hand(next);
    }
  }
}
