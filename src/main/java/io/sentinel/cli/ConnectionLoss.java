package io.sentinel.cli;

import com.hivemq.client.mqtt.exceptions.ConnectionClosedException;
import com.hivemq.client.mqtt.exceptions.ConnectionFailedException;
import com.hivemq.client.mqtt.exceptions.MqttSessionExpiredException;
import java.time.Duration;

/**
 * When a command's one exchange with the broker (connect, subscribe, publish, wait) is worth
 * starting again on a new connection: the broker closed the last one (a restart, a client-id
 * takeover, a flaky link) and at least a second of the command's timeout is left. Once a connection
 * was lost, a refused one is tried again too (a broker restarting); a first connection refused, or
 * a TLS failure, is not: trying again would only fail the same way.
 */
final class ConnectionLoss {
  private static final Duration LEAST = Duration.ofSeconds(1);
  private static final Duration PAUSE = Duration.ofMillis(250);

  private ConnectionLoss() {}

  static boolean worthRetrying(Throwable cause, boolean lostBefore, long deadlineNanos)
      throws InterruptedException {
    boolean lost =
        cause instanceof MqttSessionExpiredException
            || cause instanceof ConnectionClosedException
            || (lostBefore && cause instanceof ConnectionFailedException);
    if (!lost || deadlineNanos - System.nanoTime() < LEAST.toNanos()) {
      return false;
    }
    Thread.sleep(PAUSE.toMillis());
    return true;
  }
}
