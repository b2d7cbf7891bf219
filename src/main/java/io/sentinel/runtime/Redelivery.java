package io.sentinel.runtime;

import io.sentinel.mqtt.MqttConnection;
import io.sentinel.point.Sample;
import io.sentinel.store.RedeliveryTail;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Tells a message the broker delivers again after a crash, already in the log, from a new one
 * (docs/live.md, "Messages delivered again after a crash"). The broker delivers a session's
 * unacknowledged messages again in their original order, and the gateway logged them in the order
 * it received them, so those already logged are a suffix of the log's tail after the last
 * acknowledgement mark and a prefix of what arrives from the backlog. Every start position in the
 * tail is a candidate; each message keeps the candidates its samples continue. A message that
 * continues one is a repeat: acknowledged, not taken again. The first that continues none, or the
 * first not from the backlog, ends the matching for good.
 *
 * <p>Called on the MQTT client's thread, in delivery order.
 */
final class Redelivery {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** Nothing to match (no tail, or matching over). */
  static final Redelivery NONE = new Redelivery(RedeliveryTail.Tail.NONE);

  private final long mark;
  private Map<String, Integer> ids;
  private int[] tail;

  /** The positions in the tail a candidate expects next; null before the first message. */
  private int[] candidates;

  /** Volatile: every later message looks at it without taking the lock. */
  private volatile boolean done;

  private long repeats;
  private long repeatedSamples;

  Redelivery(RedeliveryTail.Tail logged) {
    this.mark = logged.mark();
    this.ids = new HashMap<>();
    this.tail = new int[logged.keys().size()];
    for (int i = 0; i < tail.length; i++) {
      tail[i] = ids.computeIfAbsent(logged.keys().get(i), k -> ids.size());
    }
    this.done = tail.length == 0;
    if (!done) {
      LOG.infof(
          "SEN-140 %d MQTT samples are logged around the last acknowledgement (seq %d): a message"
              + " the broker delivers again that repeats them in order is acknowledged and not"
              + " taken twice",
          tail.length, mark);
    }
  }

  /** The tail read at start; one that cannot be read matches nothing (said). */
  static Redelivery from(java.util.function.Supplier<RedeliveryTail.Tail> tail) {
    try {
      return new Redelivery(tail.get());
    } catch (RuntimeException e) {
      LOG.warnf(
          "SEN-142 the samples logged after the last acknowledgement could not be read (%s):"
              + " messages the broker delivers again are taken again",
          e.getMessage());
      return NONE;
    }
  }

  /**
   * Whether this message repeats the log's tail: then it is acknowledged at once and not taken.
   * {@code source} is the samples' log source ({@code mqtt:<topic>}).
   */
  boolean repeats(
      String source,
      List<Sample> samples,
      Optional<Instant> deviceTime,
      MqttConnection.Delivery delivery) {
    if (done) {
      return false;
    }
    synchronized (this) {
      return matches(source, samples, deviceTime, delivery);
    }
  }

  private boolean matches(
      String source,
      List<Sample> samples,
      Optional<Instant> deviceTime,
      MqttConnection.Delivery delivery) {
    if (done || samples.isEmpty()) {
      return false;
    }
    if (delivery.retained()) {
      return false; // the topic's kept value at subscribe: not a delivery again, nor a new sample
    }
    if (!delivery.backlog()) {
      return end();
    }
    int[] message = new int[samples.size()];
    for (int i = 0; i < message.length; i++) {
      Sample s = samples.get(i);
      Integer id = ids.get(RedeliveryTail.key(source, s.pointId(), s.value(), deviceTime));
      if (id == null) {
        return end();
      }
      message[i] = id;
    }
    int[] next = new int[candidates == null ? tail.length : candidates.length];
    int n = 0;
    if (candidates == null) {
      for (int p = 0; p + message.length <= tail.length; p++) {
        if (continues(p, message)) {
          next[n++] = p + message.length;
        }
      }
    } else {
      for (int p : candidates) {
        if (p + message.length <= tail.length && continues(p, message)) {
          next[n++] = p + message.length;
        }
      }
    }
    if (n == 0) {
      return end();
    }
    candidates = Arrays.copyOf(next, n);
    repeats++;
    repeatedSamples += message.length;
    return true;
  }

  /** Messages found repeated so far (tests, the report at the end). */
  synchronized long repeats() {
    return repeats;
  }

  private boolean continues(int p, int[] message) {
    for (int i = 0; i < message.length; i++) {
      if (tail[p + i] != message[i]) {
        return false;
      }
    }
    return true;
  }

  /** Matching is over: said once, and the tail let go. */
  private boolean end() {
    done = true;
    ids = null;
    tail = null;
    candidates = null;
    LOG.infof(
        "SEN-141 %d MQTT messages (%d samples) delivered again after the restart were already in"
            + " the log: acknowledged, not taken twice; matching ends here",
        repeats, repeatedSamples);
    return false;
  }
}
