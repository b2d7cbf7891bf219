package io.sentinel.runtime;

import io.vertx.core.Context;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The {@link EngineLoop}'s acknowledgements: an MQTT message is acknowledged to its sender once the
 * pass that took it is durable in the log ({@link PassLog#durableSeq()}), in order. Released on the
 * engine's context.
 */
final class DurableAcks {
  private static final Logger LOG = Logger.getLogger(EngineLoop.class);

  /** The acknowledgements of the messages a pass took, released once the pass is durable. */
  private record PendingAcks(long seq, List<Runnable> acks) {}

  private final Context context;
  private final PassLog passLog;
  private final InstantSource clock;
  private final ArrayDeque<PendingAcks> pendingAcks = new ArrayDeque<>();
  private final AtomicLong unacknowledged = new AtomicLong();
  private volatile long acknowledgedThrough = -1;
  private final AtomicBoolean releaseScheduled = new AtomicBoolean();
  private volatile Runnable released = () -> {};

  DurableAcks(Context context, PassLog passLog, InstantSource clock) {
    this.context = context;
    this.passLog = passLog;
    this.clock = clock;
  }

  /** What runs on the engine's context after acknowledgements were released (the intake bound). */
  void onReleased(Runnable r) {
    released = r;
  }

  /** A message was taken (any thread): its acknowledgement waits for its pass. */
  void taken() {
    unacknowledged.incrementAndGet();
  }

  /** Messages taken (or waiting to be) whose acknowledgement waits for the log's durable mark. */
  long unacknowledged() {
    return unacknowledged.get();
  }

  /** The sequence number of the last pass whose messages were acknowledged as durable, or -1. */
  long acknowledgedThrough() {
    return acknowledgedThrough;
  }

  /**
   * A pass the log kept is acknowledged once the log's durable mark has passed it (checked now and
   * each time the log says the mark moved); one it did not keep (no log, refused, failed: each said
   * where it happened) at once, because the MQTT client sends acknowledgements in order and one
   * held forever would hold back every later one.
   */
  void awaitDurable(long seq, List<Runnable> acks) {
    if (!acks.isEmpty()) {
      if (seq < 0) {
        acks.forEach(this::acknowledge);
      } else {
        pendingAcks.addLast(new PendingAcks(seq, acks));
      }
    }
    releaseDurable();
  }

  /** The log's durable mark moved (any thread): release what waits, on the engine's context. */
  void durableMoved() {
    if (releaseScheduled.compareAndSet(false, true)) {
      context.runOnContext(
          v -> {
            releaseScheduled.set(false);
            releaseDurable();
          });
    }
  }

  void releaseDurable() {
    if (pendingAcks.isEmpty()) {
      return;
    }
    long durable = passLog.durableSeq();
    long before = acknowledgedThrough;
    while (!pendingAcks.isEmpty() && pendingAcks.peekFirst().seq() <= durable) {
      PendingAcks p = pendingAcks.removeFirst();
      p.acks().forEach(this::acknowledge);
      acknowledgedThrough = p.seq();
    }
    if (acknowledgedThrough != before) {
      passLog.acknowledged(acknowledgedThrough, clock.instant());
      released.run();
    }
  }

  private void acknowledge(Runnable ack) {
    unacknowledged.decrementAndGet();
    try {
      ack.run();
    } catch (RuntimeException e) {
      LOG.warnf("SEN-023 an MQTT message could not be acknowledged: %s", e.getMessage());
    }
  }
}
