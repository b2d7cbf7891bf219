package io.sentinel.runtime;

/**
 * StandbyFailoverIT's device: samples on a number point as fast as the broker takes them, and a
 * bool point that flips five times a second or, when {@link #steady}, says {@code true} as often.
 */
final class FailoverLoad implements AutoCloseable {
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean flipping = true;

  FailoverLoad(BrokerClient device, String loadTopic, String okTopic) {
    thread =
        new Thread(
            () -> {
              long sent = 0;
              boolean ok = false;
              for (int i = 0; running; i++) {
                device.publish(loadTopic, Integer.toString(i));
                if (System.nanoTime() - sent > 200_000_000L) {
                  sent = System.nanoTime();
                  ok = !flipping || !ok;
                  device.publish(okTopic, Boolean.toString(ok));
                }
              }
            },
            "failover-it-device");
    thread.setDaemon(true);
    thread.start();
  }

  /** The bool point steady {@code true}: nothing for the interlock to do. */
  void steady() {
    flipping = false;
  }

  /** The bool point flipping again: a command every 200 ms. */
  void flip() {
    flipping = true;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(5000);
  }
}
