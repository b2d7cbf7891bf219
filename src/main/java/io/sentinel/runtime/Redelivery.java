package io.sentinel.runtime;

import io.sentinel.mqtt.MqttConnection;
import io.sentinel.point.Sample;
import io.sentinel.store.RedeliveryTail;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Tells a message the broker delivers again, already taken, from a new one (docs/live.md, "Messages
 * delivered again"). What may come again is known: after a crash, the MQTT samples logged around
 * the last acknowledgement mark (the log's tail); after a reconnect of this process, the messages
 * it took whose PUBACK may not have reached the broker ({@link RecentMessages}). Each of those
 * samples can stand for one sample delivered with the same content (topic, point, value, device
 * time) while the broker's backlog drains; a message whose every sample finds one is a repeat, not
 * taken again, and uses them up. Not by order: Mosquitto 2.0 sends what it held unacknowledged
 * behind messages queued later (GatewayCrashIT's link reset), so a match on order ended at the
 * first of those and logged every later repeat twice. The first message not from the backlog ends
 * the matching for good.
 *
 * <p>Called on the MQTT client's thread, in delivery order.
 */
final class Redelivery {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** Nothing to match (no tail, or matching over). */
  static final Redelivery NONE = new Redelivery(List.of(), Durable.ALREADY);

  /** When a repeat of the sample at a position in the tail may be acknowledged. */
  interface Durable {
    /** Every sample of the log's tail is durable already. */
    Durable ALREADY = (position, acknowledge) -> acknowledge.run();

    void then(int position, Runnable acknowledge);
  }

  private final Durable durable;

  /** For each key, the positions not yet used up, oldest first. */
  private Map<String, ArrayDeque<Integer>> unused;

  private int left;

  /** Volatile: every later message looks at it without taking the lock. */
  private volatile boolean done;

  private long repeats;
  private long repeatedSamples;

  /** The log's tail read at start: every sample in it is durable. */
  Redelivery(RedeliveryTail.Tail logged) {
    this(logged.keys(), Durable.ALREADY);
    if (!done) {
      LOG.infof(
          "SEN-140 %d MQTT samples are logged around the last acknowledgement (seq %d): a message"
              + " the broker delivers again that repeats them is acknowledged and not taken twice",
          left, logged.mark());
    }
  }

  /** The keys of samples taken, in order, and when a repeat of each may be acknowledged. */
  Redelivery(List<String> keys, Durable durable) {
    this.durable = durable;
    this.unused = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      unused.computeIfAbsent(keys.get(i), k -> new ArrayDeque<>(1)).addLast(i);
    }
    this.left = keys.size();
    this.done = left == 0;
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
   * Whether this message repeats samples taken: then it is not taken, and {@code acknowledge} runs
   * once the latest of the samples it uses up is durable (samples become durable in order). {@code
   * source} is the samples' log source ({@code mqtt:<topic>}).
   */
  boolean repeats(
      String source,
      List<Sample> samples,
      Optional<Instant> deviceTime,
      MqttConnection.Delivery delivery,
      Runnable acknowledge) {
    if (done) {
      return false;
    }
    int latest;
    synchronized (this) {
      latest = matches(source, samples, deviceTime, delivery);
    }
    if (latest < 0) {
      return false;
    }
    durable.then(latest, acknowledge);
    return true;
  }

  /** The latest position the message uses up, or -1: not a repeat. */
  private int matches(
      String source,
      List<Sample> samples,
      Optional<Instant> deviceTime,
      MqttConnection.Delivery delivery) {
    if (done || samples.isEmpty()) {
      return -1;
    }
    if (delivery.retained()) {
      return -1; // the topic's kept value at subscribe: not a delivery again, nor a new sample
    }
    if (!delivery.backlog()) {
      end();
      return -1;
    }
    List<ArrayDeque<Integer>> found = new ArrayList<>(samples.size());
    Map<ArrayDeque<Integer>, Integer> wanted = new java.util.IdentityHashMap<>(2);
    for (Sample s : samples) {
      ArrayDeque<Integer> positions =
          unused.get(RedeliveryTail.key(source, s.pointId(), s.value(), deviceTime));
      if (positions == null || positions.size() < wanted.merge(positions, 1, Integer::sum)) {
        return -1; // new: taken; the matching goes on, a repeat may still come
      }
      found.add(positions);
    }
    // Acknowledged once the newest sample of that content is durable: which one it repeats is not
    // known, and an acknowledgement before its original is durable could lose it with the process.
    int latest = -1;
    for (ArrayDeque<Integer> positions : found) {
      latest = Math.max(latest, positions.peekLast());
    }
    for (ArrayDeque<Integer> positions : found) {
      positions.removeFirst();
    }
    left -= found.size();
    repeats++;
    repeatedSamples += found.size();
    if (left == 0) {
      end();
    }
    return latest;
  }

  /** Messages found repeated so far (tests, the report at the end). */
  synchronized long repeats() {
    return repeats;
  }

  /** Matching is over: said once, and the tail let go. */
  private void end() {
    done = true;
    unused = null;
    LOG.infof(
        "SEN-141 %d MQTT messages (%d samples) delivered again were already taken: acknowledged"
            + " once durable, not taken twice; matching ends here",
        repeats, repeatedSamples);
  }
}
