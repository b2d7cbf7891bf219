package io.sentinel.mqtt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Where the broker's queued backlog ends (docs/live.md, "The backlog marker"). The broker keeps
 * what arrives for the gateway's persistent session while it is away and hands it over, in order,
 * right after the next connect, before anything published later. So at every connect the gateway
 * publishes a marker (QoS 1, not retained) to a topic of its own that its session subscribes to:
 * every message delivered before that marker comes back was queued (or retained) before the
 * connect, and is the backlog; the marker's return is its end. Each marker carries a nonce, so one
 * left in the queue by an earlier process or connect (published, never seen back) is ignored.
 *
 * <p>A marker that does not come back (an ACL that forbids the topic, a broker that drops it) must
 * not hold the gateway in the drain for ever: once no message at all has arrived for {@code quiet}
 * while draining, the backlog is taken as ended and that is said (SEN-121).
 */
final class BacklogMarker {
  private static final Logger LOG = Logger.getLogger(BacklogMarker.class);

  /** Told when a drain begins (a connect) and ends (the marker back, or the queue gone quiet). */
  interface Drain {
    void draining(boolean draining);
  }

  private final String topic;
  private final Duration quiet;
  private final Drain drain;
  private final String process = Long.toString(System.nanoTime(), 36);
  private final AtomicLong connects = new AtomicLong();
  private final AtomicLong lastArrival = new AtomicLong();
  private volatile String expected;
  private volatile boolean draining = true;

  BacklogMarker(String topic, Duration quiet, Drain drain) {
    this.topic = topic;
    this.quiet = quiet;
    this.drain = drain;
  }

  String topic() {
    return topic;
  }

  /** Whether what arrives now was queued before the last connect. */
  boolean draining() {
    return draining;
  }

  /** A new connect: what arrives is backlog until the payload returned comes back. */
  byte[] connected() {
    String nonce = process + "." + connects.incrementAndGet();
    expected = nonce;
    setDraining(true);
    arrived();
    watch(nonce);
    return nonce.getBytes(StandardCharsets.UTF_8);
  }

  /** A connect to a session the broker did not keep: nothing was queued, there is no drain. */
  void nothingQueued() {
    expected = null;
    setDraining(false);
  }

  /** The connection is lost: the next connect drains again. */
  void lost() {
    expected = null;
  }

  /** A message arrived (any topic): the queue is not quiet. */
  void arrived() {
    lastArrival.set(System.nanoTime());
  }

  /** A message on the marker's topic: ends the drain when it is this connect's marker. */
  void returned(byte[] payload) {
    String nonce = new String(payload, StandardCharsets.UTF_8);
    if (nonce.equals(expected)) {
      expected = null;
      setDraining(false);
    } else {
      LOG.debugf("an earlier backlog marker %s came back (expected %s): ignored", nonce, expected);
    }
  }

  private void setDraining(boolean now) {
    draining = now;
    drain.draining(now);
  }

  /** Ends a drain whose marker never came back once the queue has been quiet for {@code quiet}. */
  private void watch(String nonce) {
    CompletableFuture.delayedExecutor(quiet.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (!nonce.equals(expected)) {
                return;
              }
              long silent = System.nanoTime() - lastArrival.get();
              if (silent < quiet.toNanos()) {
                watch(nonce);
                return;
              }
              expected = null;
              LOG.warnf(
                  "SEN-121 the backlog marker on %s did not come back, and nothing arrived for %s:"
                      + " the backlog is taken as drained (may the gateway's client publish and"
                      + " subscribe to this topic? docs/live.md)",
                  topic, quiet);
              setDraining(false);
            });
  }
}
