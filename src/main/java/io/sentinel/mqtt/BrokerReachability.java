package io.sentinel.mqtt;

import java.util.Optional;

/**
 * What the log says about reaching the broker: once when it cannot be reached (with the reason),
 * again only when the reason changes, and once when it is reached; never once per retry. Called
 * from the MQTT client's threads.
 */
final class BrokerReachability {
  private String unreachableFor; // the reason last said, null while reached or not yet tried

  /** A connect attempt failed: the line to log, when this is news. */
  synchronized Optional<String> failed(String reason) {
    if (reason.equals(unreachableFor)) {
      return Optional.empty();
    }
    unreachableFor = reason;
    return Optional.of(reason);
  }

  /** Connected: whether it had been unreachable (so "reached again" is news). */
  synchronized boolean reached() {
    boolean was = unreachableFor != null;
    unreachableFor = null;
    return was;
  }
}
