package io.sentinel.arbitration;

import io.sentinel.point.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Per-point claim tables and the choice between claims: band, then priority, then the freshest
 * input, then more matched conditions, then rule id (the smallest wins, so the outcome never
 * depends on arrival order).
 */
public final class Arbiter {
  /** The order of the keys; the first that separates winner and runner-up is the deciding key. */
  private static final List<Map.Entry<String, Comparator<Claim>>> KEYS =
      List.of(
          Map.entry("band", Comparator.comparingInt((Claim c) -> c.band().rank()).reversed()),
          Map.entry("priority", Comparator.comparingInt(Claim::priority).reversed()),
          Map.entry("freshness", Comparator.comparing(Claim::freshness).reversed()),
          Map.entry("matched_conditions", Comparator.comparingInt(Claim::matched).reversed()),
          Map.entry("rule_id", Comparator.comparing(Claim::ruleId)));

  private static final Comparator<Claim> ORDER =
      KEYS.stream().map(Map.Entry::getValue).reduce(Comparator::thenComparing).orElseThrow();

  private final Map<String, Map<String, Claim>> tables = new HashMap<>();
  private final Function<String, Optional<Value>> releaseValue;

  /**
   * @param releaseValue the value a point takes when no claim is left on it, if any
   */
  public Arbiter(Function<String, Optional<Value>> releaseValue) {
    this.releaseValue = releaseValue;
  }

  public void assertClaim(Claim claim) {
    tables.computeIfAbsent(claim.pointId(), k -> new LinkedHashMap<>()).put(claim.ruleId(), claim);
  }

  /** Every claim asserted now, point by point. */
  public List<Claim> claims() {
    List<Claim> all = new ArrayList<>();
    tables.values().forEach(t -> all.addAll(t.values()));
    return all;
  }

  public void release(String ruleId, String pointId) {
    Map<String, Claim> table = tables.get(pointId);
    if (table != null) {
      table.remove(ruleId);
    }
  }

  public Decision decide(String pointId) {
    Map<String, Claim> table = tables.getOrDefault(pointId, Map.of());
    if (table.isEmpty()) {
      return new Decision(
          pointId, Optional.empty(), releaseValue.apply(pointId), List.of(), "released");
    }
    if (table.size() == 1) {
      // A sole claim (most points): no copy to sort.
      Claim sole = table.values().iterator().next();
      return new Decision(
          pointId, Optional.of(sole), Optional.of(sole.value()), List.of(sole), "sole");
    }
    List<Claim> contenders = new ArrayList<>(table.values());
    contenders.sort(ORDER);
    Claim winner = contenders.get(0);
    String key = decidingKey(winner, contenders.get(1));
    return new Decision(pointId, Optional.of(winner), Optional.of(winner.value()), contenders, key);
  }

  private static String decidingKey(Claim winner, Claim runnerUp) {
    for (Map.Entry<String, Comparator<Claim>> k : KEYS) {
      if (k.getValue().compare(winner, runnerUp) != 0) {
        return k.getKey();
      }
    }
    return "rule_id";
  }

  /** Every point that currently has at least one claim. */
  public List<String> claimedPoints() {
    return tables.entrySet().stream()
        .filter(e -> !e.getValue().isEmpty())
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }
}
