package io.sentinel.runtime;

import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.store.RedeliveryTail;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The MQTT messages this process took, in delivery order, kept until they are durable and then a
 * few thousand more: what the broker delivers again when a connection ends and the next one finds
 * the session (docs/live.md, "Messages delivered again after a reconnect"). The journal is no help
 * there: a message taken but not yet durable is in no log, and it is delivered again all the same.
 * So each message is remembered with its acknowledgement, and a repeat of it is acknowledged only
 * once the original's pass is durable: a repeat acknowledged earlier could be lost with the
 * process.
 */
final class RecentMessages {
  /** Durable messages kept past their acknowledgement (as {@link RedeliveryTail}'s before-mark). */
  static final int DURABLE_KEPT = 5_000;

  /** All kept at most: the oldest goes first, durable or not (then a repeat of it is taken). */
  static final int MAX = RedeliveryTail.MAX;

  /** PUBACKs handed to the client this long before a loss was seen may not have left. */
  static final long IN_FLIGHT = 2_000_000_000L;

  private final ArrayDeque<Taken> taken = new ArrayDeque<>();

  /** The connection: counted up at each loss. */
  private volatile long connection;

  private volatile long lostAt;
  private volatile boolean up;

  /** The connection ended (seen now; a failed reconnect is no new loss). */
  void connectionLost() {
    if (up) {
      up = false;
      lostAt = System.nanoTime();
      connection++;
    }
  }

  /** A connection is up. */
  void connected() {
    up = true;
  }

  /**
   * A message taken: returns the acknowledgement to hand the engine, which also releases every
   * repeat of it that waits.
   */
  synchronized Runnable taken(
      String source, List<Sample> samples, Optional<Instant> deviceTime, Runnable acknowledge) {
    if (samples.isEmpty()) {
      return acknowledge;
    }
    Taken t = new Taken(source, samples, deviceTime, acknowledge);
    taken.addLast(t);
    while (taken.size() > MAX || (taken.size() > DURABLE_KEPT && taken.peekFirst().durable())) {
      taken.removeFirst();
    }
    return t;
  }

  /**
   * What a connect that finds the session matches against; {@link Redelivery#NONE} when nothing was
   * taken (the first connect of a process: the journal's tail is matched instead).
   */
  Redelivery redelivery() {
    List<Taken> messages;
    synchronized (this) {
      if (taken.isEmpty()) {
        return null;
      }
      messages = new ArrayList<>(taken);
    }
    long surelyAcknowledged = lostAt - IN_FLIGHT;
    List<String> keys = new ArrayList<>();
    List<Taken> bySample = new ArrayList<>();
    for (Taken t : messages) {
      if (t.acknowledgedBefore(surelyAcknowledged)) {
        continue;
      }
      keys.add(RedeliveryTail.key(t.source, t.firstPoint, t.firstValue, t.deviceTime));
      bySample.add(t);
      for (Sample s : t.more) {
        keys.add(RedeliveryTail.key(t.source, s.pointId(), s.value(), t.deviceTime));
        bySample.add(t);
      }
    }
    return keys.isEmpty()
        ? Redelivery.NONE
        : new Redelivery(keys, (position, ack) -> bySample.get(position).then(ack));
  }

  /**
   * A message taken, the connection it last came on, when its PUBACK was handed to the client on
   * that connection, and the repeats of it that wait for it to be durable.
   */
  private final class Taken implements Runnable {
    private final String source;

    /**
     * What a repeat is matched by, and no more: a message of one sample (the usual) keeps neither
     * the sample, its instant nor a list, which each young collection would copy (docs/load.md,
     * session 16).
     */
    private final String firstPoint;

    private final Value firstValue;
    private final List<Sample> more;
    private final Optional<Instant> deviceTime;

    /** Null once run: it holds the client's whole message, which a kept entry must not. */
    private Runnable acknowledge;

    private long on = connection;
    private long acknowledgedAt = -1;
    private boolean durable;
    private List<Runnable> waiting;

    Taken(String source, List<Sample> samples, Optional<Instant> deviceTime, Runnable ack) {
      this.source = source;
      this.firstPoint = samples.get(0).pointId();
      this.firstValue = samples.get(0).value();
      this.more = samples.size() == 1 ? List.of() : List.copyOf(samples.subList(1, samples.size()));
      this.deviceTime = deviceTime;
      this.acknowledge = ack;
    }

    /** Its pass is durable: its own acknowledgement, then every repeat's. */
    @Override
    public void run() {
      Runnable own;
      synchronized (this) {
        own = acknowledge;
        acknowledge = null;
      }
      if (own != null) {
        own.run();
      }
      List<Runnable> released;
      synchronized (this) {
        durable = true;
        handedOver();
        released = waiting;
        waiting = null;
      }
      if (released != null) {
        released.forEach(Runnable::run);
      }
    }

    synchronized boolean durable() {
      return durable;
    }

    /** Whether its PUBACK was handed over on its connection before {@code nanos}. */
    synchronized boolean acknowledgedBefore(long nanos) {
      return acknowledgedAt >= 0 && acknowledgedAt - nanos < 0;
    }

    /** Guarded by this: the PUBACK handed to the client now, on the connection it came on? */
    private void handedOver() {
      acknowledgedAt = on == connection ? System.nanoTime() : -1;
    }

    /** A repeat on this connection: its acknowledgement now if this is durable, else once it is. */
    void then(Runnable ack) {
      synchronized (this) {
        on = connection;
        acknowledgedAt = -1;
        if (!durable) {
          if (waiting == null) {
            waiting = new ArrayList<>(1);
          }
          waiting.add(ack);
          return;
        }
      }
      ack.run();
      synchronized (this) {
        handedOver();
      }
    }
  }
}
