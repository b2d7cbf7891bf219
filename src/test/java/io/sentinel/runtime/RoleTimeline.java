package io.sentinel.runtime;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cores' retained roles ({@code sentinel/<site>/cores/<id>}) in the order a client got them.
 */
final class RoleTimeline {
  private RoleTimeline() {}

  /**
   * The most cores that said {@code active} at one time, over every message below {@code prefix}.
   */
  static int mostActiveAtOnce(List<BrokerClient.Received> received, String prefix) {
    Map<String, String> role = new HashMap<>();
    int most = 0;
    for (BrokerClient.Received r : received) {
      if (r.topic().startsWith(prefix) && r.payload().length > 0) {
        role.put(r.topic(), r.json().getString("state"));
        most = Math.max(most, (int) role.values().stream().filter("active"::equals).count());
      }
    }
    return most;
  }
}
