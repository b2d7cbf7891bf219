package io.sentinel.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The tank of {@link GatewayOutageIT}: while the gateway is down it publishes, QoS 1, the inlet's
 * temperature once (the first message queued for the gateway) and the tank's level {@link #RATE}
 * times a second, 50 % for 40 s, then 96 % (past both rules' thresholds) for 40 s, then 40 %; each
 * level a distinct value (a fraction added per sample, under 1 %) so that the log shows every one
 * taken. After the outage it goes on at 30 % (fresh readings), five a second, until stopped.
 */
final class OutageDevice {
  static final int RATE = 50;

  private final BrokerClient client;
  private final String level;
  private final String inlet;
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final List<CompletableFuture<?>> outage = new CopyOnWriteArrayList<>();
  private final CountDownLatch outageDone = new CountDownLatch(1);
  private final Thread thread = new Thread(this::run, "outage-device");
  private volatile boolean down = true;
  private volatile boolean running = true;

  OutageDevice(BrokerClient client, String levelTopic, String inletTopic) {
    this.client = client;
    this.level = levelTopic;
    this.inlet = inletTopic;
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * The gateway is about to start again: the outage's samples end here. Returns how many levels
   * were published, once the broker has acknowledged every one.
   */
  int outageOver() throws Exception {
    down = false;
    if (!outageDone.await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the device did not finish its outage");
    }
    CompletableFuture.allOf(outage.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    return queued.get();
  }

  void stop() throws InterruptedException {
    running = false;
    thread.join(5_000);
  }

  /** Publishes the broker did not acknowledge. */
  int failed() {
    return failed.get();
  }

  /** The level of the {@code i}-th sample of the outage. */
  static double levelAt(int i) {
    int phase = i / (RATE * 40);
    return (phase == 0 ? 50 : phase == 1 ? 96 : 40) + i / 10_000.0;
  }

  private void run() {
    outage.add(publish(inlet, "20.0"));
    long t0 = System.nanoTime();
    for (int i = 0; down; i++) {
      long due = t0 + i * 1_000_000_000L / RATE;
      for (long wait; (wait = due - System.nanoTime()) > 0 && down; ) {
        LockSupport.parkNanos(Math.min(wait, 10_000_000L));
      }
      if (!down) {
        break;
      }
      outage.add(publish(level, String.format(Locale.ROOT, "%.4f", levelAt(i))));
      queued.incrementAndGet();
    }
    outageDone.countDown();
    for (int j = 0; running; j++) {
      publish(level, String.format(Locale.ROOT, "%.4f", 30 + j / 10_000.0));
      LockSupport.parkNanos(200_000_000L);
    }
  }

  private CompletableFuture<?> publish(String topic, String payload) {
    return client
        .publishAsync(topic, payload.getBytes(StandardCharsets.UTF_8), false)
        .whenComplete(
            (ack, error) -> {
              if (error != null) {
                failed.incrementAndGet();
              }
            });
  }

  /** Sleeps until {@code t}, without spinning. */
  static void sleepUntil(Instant t) {
    for (Duration left;
        !(left = Duration.between(Instant.now(), t)).isNegative() && !left.isZero(); ) {
      LockSupport.parkNanos(Math.min(left.toNanos(), 100_000_000L));
    }
  }
}
