package io.sentinel.arbitration;

import io.sentinel.point.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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

  /**
   * One point's claims, in the order they were first asserted (a claim asserted again keeps its
   * place). A caller that arbitrates the same point over and over (the engine) keeps the table it
   * got from {@link #table} and asks by it, so that no point id is hashed on its hot path.
   *
   * <p>A claim's freshness and matched count also sit in {@link #keys} as primitives, where {@link
   * #rekey} moves them in place: a rule whose answer stays the same while its input moves (every
   * sample of a hot zone) builds no new claim and stores no reference into this long-lived table.
   * The claim is rebuilt with its keys when arbitration or a view next reads it.
   */
  public static final class Table {
    final String pointId;
    private Claim[] claims = new Claim[1];

    /** The claims' rule ids, beside them: a claim asserted again is found without reading one. */
    private String[] rules = new String[1];

    /** Per claim, two longs: freshness' epoch second; its nano (high half) and matched (low). */
    private long[] keys = new long[2];

    /** In place of an epoch second (none is this small): the claim has no freshness to move. */
    private static final long AS_ASSERTED = Long.MIN_VALUE;

    private int size;

    /** Counts the asserts and releases (not the re-keys): unchanged, so are rules and values. */
    private int version;

    /** The point's release value, asked once (null: not yet). */
    private Optional<Value> releaseValue;

    Table(String pointId) {
      this.pointId = pointId;
    }

    public String pointId() {
      return pointId;
    }

    public int size() {
      return size;
    }

    /**
     * Moves on with every claim asserted or released here, not with a {@link #rekey}: while it
     * stays, so do the claims' rules and values (a sole claim's outcome among them).
     */
    public int version() {
      return version;
    }

    void put(Claim claim) {
      version++;
      String rule = claim.ruleId();
      for (int k = 0; k < size; k++) {
        String other = rules[k];
        if (other == rule || other.equals(rule)) {
          claims[k] = claim;
          keysOf(k, claim);
          return;
        }
      }
      if (size == claims.length) {
        claims = java.util.Arrays.copyOf(claims, size * 2);
        rules = java.util.Arrays.copyOf(rules, size * 2);
        keys = java.util.Arrays.copyOf(keys, size * 4);
      }
      rules[size] = rule;
      claims[size] = claim;
      keysOf(size++, claim);
    }

    /**
     * Moves the freshness (epoch second and nano) and matched count of the claim of {@code ruleId}
     * in place; false when the rule has no claim here (the caller then asserts one).
     */
    public boolean rekey(String ruleId, long second, int nano, int matched) {
      for (int k = 0; k < size; k++) {
        String other = rules[k];
        if (other == ruleId || other.equals(ruleId)) {
          setKeys(k, second, nano, matched);
          return true;
        }
      }
      return false;
    }

    /** The keys of a claim as asserted; a claim without a freshness is read as it is. */
    private void keysOf(int k, Claim claim) {
      java.time.Instant f = claim.freshness();
      if (f == null) {
        keys[2 * k] = AS_ASSERTED;
        return;
      }
      setKeys(k, f.getEpochSecond(), f.getNano(), claim.matched());
    }

    private void setKeys(int k, long second, int nano, int matched) {
      keys[2 * k] = second;
      keys[2 * k + 1] = ((long) nano << 32) | (matched & 0xFFFFFFFFL);
    }

    /** The k-th claim with its current keys, rebuilt if {@link #rekey} moved them. */
    Claim claim(int k) {
      Claim c = claims[k];
      long second = keys[2 * k];
      if (second == AS_ASSERTED) {
        return c;
      }
      int nano = (int) (keys[2 * k + 1] >>> 32);
      int matched = (int) keys[2 * k + 1];
      java.time.Instant f = c.freshness();
      if (f == null
          || f.getEpochSecond() != second
          || f.getNano() != nano
          || c.matched() != matched) {
        c =
            new Claim(
                c.ruleId(),
                c.pointId(),
                c.band(),
                c.priority(),
                c.value(),
                java.time.Instant.ofEpochSecond(second, nano),
                matched);
        claims[k] = c;
      }
      return c;
    }

    void remove(String ruleId) {
      version++;
      for (int k = 0; k < size; k++) {
        if (rules[k].equals(ruleId)) {
          System.arraycopy(claims, k + 1, claims, k, size - k - 1);
          System.arraycopy(rules, k + 1, rules, k, size - k - 1);
          System.arraycopy(keys, 2 * k + 2, keys, 2 * k, 2 * (size - k - 1));
          claims[--size] = null;
          rules[size] = null;
          return;
        }
      }
    }

    List<Claim> list() {
      Claim[] all = new Claim[size];
      for (int k = 0; k < size; k++) {
        all[k] = claim(k);
      }
      return List.of(all);
    }
  }

  private final Map<String, Table> tables = new HashMap<>();
  private final Function<String, Optional<Value>> releaseValue;

  /**
   * @param releaseValue the value a point takes when no claim is left on it, if any
   */
  public Arbiter(Function<String, Optional<Value>> releaseValue) {
    this.releaseValue = releaseValue;
  }

  /** The claim table of a point, made on first use and the same object ever after. */
  public Table table(String pointId) {
    return tables.computeIfAbsent(pointId, Table::new);
  }

  /** The claim table of a point, or null when nothing was ever asserted on it. */
  public Table find(String pointId) {
    return tables.get(pointId);
  }

  public void assertClaim(Claim claim) {
    table(claim.pointId()).put(claim);
  }

  /** {@link #assertClaim(Claim)} into the table of the claim's point. */
  public void assertClaim(Table table, Claim claim) {
    table.put(claim);
  }

  /** Every claim asserted now, point by point. */
  public List<Claim> claims() {
    List<Claim> all = new ArrayList<>();
    tables.values().forEach(t -> all.addAll(t.list()));
    return all;
  }

  public void release(String ruleId, String pointId) {
    Table table = tables.get(pointId);
    if (table != null) {
      table.remove(ruleId);
    }
  }

  /** {@link #release(String, String)} from a table got from {@link #table}. */
  public void release(Table table, String ruleId) {
    table.remove(ruleId);
  }

  public Decision decide(String pointId) {
    Table table = tables.get(pointId);
    return table == null ? released(pointId) : decide(table);
  }

  public Decision decide(Table table) {
    String pointId = table.pointId;
    if (table.size == 0) {
      if (table.releaseValue == null) {
        table.releaseValue = releaseValue.apply(pointId);
      }
      return released(pointId, table.releaseValue);
    }
    if (table.size == 1) {
      // A sole claim (most points): no copy to sort.
      Claim sole = table.claim(0);
      return new Decision(
          pointId, Optional.of(sole), Optional.of(sole.value()), List.of(sole), "sole");
    }
    List<Claim> contenders = new ArrayList<>(table.size);
    for (int k = 0; k < table.size; k++) {
      contenders.add(table.claim(k));
    }
    contenders.sort(ORDER);
    Claim winner = contenders.get(0);
    String key = decidingKey(winner, contenders.get(1));
    return new Decision(pointId, Optional.of(winner), Optional.of(winner.value()), contenders, key);
  }

  /**
   * Whether {@link #decide(Table)} would now give the same outcome as a decision whose winner's
   * rule was {@code lastRule} and whose value was {@code lastValue} ({@link Decision#sameOutcome}),
   * answered without building a decision when the point has a sole claim; false when it cannot tell
   * so cheaply (the caller then decides).
   */
  public static boolean stillSole(Table table, String lastRule, Value lastValue) {
    if (table.size != 1 || lastRule == null || lastValue == null) {
      return false;
    }
    String rule = table.rules[0];
    return (rule == lastRule || rule.equals(lastRule)) && lastValue.equals(table.claims[0].value());
  }

  private Decision released(String pointId) {
    return released(pointId, releaseValue.apply(pointId));
  }

  private static Decision released(String pointId, Optional<Value> value) {
    return new Decision(pointId, Optional.empty(), value, List.of(), "released");
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
        .filter(e -> e.getValue().size > 0)
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }
}
