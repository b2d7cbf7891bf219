package io.sentinel.mqtt;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Counts the acknowledgements the gateway gave the MQTT client that the client has not acted on yet
 * (docs/runtime.md, "Overload").
 *
 * <p>Why: HiveMQ's client (1.3) acts on each manual acknowledgement in a task on its event loop,
 * which walks its whole queue of messages not yet acknowledged to the broker. That queue is as long
 * as the gateway's backlog, so under overload each acknowledgement costs more, the event loop falls
 * behind, and messages the gateway counted as acknowledged stay in the client: the broker still
 * counts them in flight and keeps sending, up to the Receive Maximum. At 20,000 samples/s on two
 * saturated cores the client held 50,076 such messages while the intake bound counted under 5,736,
 * until the broker reused a packet identifier still in flight, the client dropped the connection,
 * and the redelivered backlog ran the 48 MB heap out. Counted until a task queued behind the
 * acknowledgement on the same event loop has run, they stay inside the intake bound.
 */
final class Settling {
  private final AtomicLong unsettled = new AtomicLong();
  private volatile Predicate<Runnable> behindClientTasks = task -> false;
  private volatile Runnable settled = () -> {};
  private final Runnable settle =
      () -> {
        unsettled.decrementAndGet();
        settled.run();
      };

  /**
   * How to queue a task behind the client's own on its event loop; false when it cannot (then an
   * acknowledgement counts as settled at once, as it does until this is set).
   */
  void queueWith(Predicate<Runnable> behindClientTasks) {
    this.behindClientTasks = behindClientTasks;
  }

  /** {@code acknowledge}, counted until the client has acted on it. */
  Runnable counting(Runnable acknowledge) {
    return () -> {
      unsettled.incrementAndGet();
      try {
        acknowledge.run();
      } finally {
        if (!behindClientTasks.test(settle)) {
          settle.run();
        }
      }
    };
  }

  /** Acknowledgements given and not yet acted on by the client. */
  long unsettled() {
    return unsettled.get();
  }

  /** Runs after each acknowledgement the client has acted on, on its event loop. */
  void onSettled(Runnable r) {
    settled = r;
  }
}
