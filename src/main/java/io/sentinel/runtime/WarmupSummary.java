package io.sentinel.runtime;

import io.sentinel.engine.ControlEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The log's account of rules leaving warmup. A pass in which a few rules leave warmup logs a line
 * per rule, as every other event; on a large site, where hundreds leave in the same pass after a
 * start, it logs a line per {@value #PER_LINE} rules instead, counted by how they left. Each rule's
 * event is still published on {@code events/warmup-left} and logged at debug level.
 */
final class WarmupSummary {
  static final String KIND = "warmup-left";

  /** Up to this many rules leaving warmup in one pass are logged one by one. */
  static final int ONE_BY_ONE = 10;

  static final int PER_LINE = 100;

  private WarmupSummary() {}

  /** The INFO lines for the warmup-left events of one pass, in the engine's order. */
  static List<String> lines(List<ControlEvent> left) {
    List<String> lines = new ArrayList<>();
    if (left.size() <= ONE_BY_ONE) {
      left.forEach(e -> lines.add(GatewayOutputs.line(e)));
      return lines;
    }
    for (int from = 0; from < left.size(); from += PER_LINE) {
      List<ControlEvent> chunk = left.subList(from, Math.min(left.size(), from + PER_LINE));
      Map<String, Long> how =
          chunk.stream()
              .collect(
                  Collectors.groupingBy(
                      ControlEvent::message, LinkedHashMap::new, Collectors.counting()));
      lines.add(
          String.format(
              "SEN-018 %d rules left warmup (%s ... %s, %d-%d of %d in this pass): %s",
              chunk.size(),
              chunk.get(0).subject(),
              chunk.get(chunk.size() - 1).subject(),
              from + 1,
              from + chunk.size(),
              left.size(),
              how.entrySet().stream()
                  .map(e -> e.getKey() + " " + e.getValue())
                  .collect(Collectors.joining(", "))));
    }
    return lines;
  }
}
