package io.sentinel.engine;

import io.sentinel.expr.Condition;
import io.sentinel.point.EpochNanos;
import io.sentinel.point.PointState;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's mutable record of one rule. Only {@link Engine} changes it.
 *
 * <p>A visit is meant to read this object and not the rule's definition (a site of 10,000 rules
 * visits each rather seldom, so every object on the path is a cache miss), and to store no
 * reference into it: under G1 each such store into a long-lived object dirties a card that a
 * refinement thread, or the engine's thread itself, must scan afterwards.
 */
final class RuleRuntime implements io.sentinel.expr.Inputs {
  final Rule rule;
  final int index;

  /** Of the definition, what a visit asks: the id (the rule's own string), the condition. */
  final String ruleId;

  final Condition when;

  /** A transition or interval trigger: claims are re-derived whenever the rule decides again. */
  final boolean levelTriggered;

  final boolean hasHoldUntil;
  final boolean hasActions;
  final int[] slots;
  final String[] inputNames;

  /**
   * The inputs' point positions by slot ({@link #slots}), then, from {@link #gatedFrom} on, those
   * of the points whose quality gates warmup and input loss: one array, so that a visit reads one
   * object for both.
   */
  private final int[] positions;

  private final int gatedFrom;

  final PointTable points;

  /** The step's instant, which its conditions read as {@link #now()}: the engine's, shared. */
  private final StepInstant step;

  RuleState state;

  /** Whence warmup's deadline runs: the engine's start, or the activation that added the rule. */
  Instant warmupFrom;

  /** The state a rule was in when a revision disabled it (empty: never enabled since start). */
  RuleState beforeDisabled;

  Instant holdUntil;
  Optional<Boolean> lastCondition = Optional.empty();

  /** How many condition parts held at the last evaluation (arbitration's matched_conditions). */
  int matched;

  /** The DSL's hold_until latch: set when the rule fires, cleared when its condition holds. */
  boolean latched;

  /** The claims the rule holds when its condition is true, on input loss, as a fail-safe. */
  Map<String, Value> whenTrue;

  /** Of a rule of one claim, {@code whenTrue.get(soleClaimPoint)}, read without the map. */
  Value soleWant;

  Map<String, Value> onLoss;
  Map<String, Value> failSafe;

  /** The one pending timer for expires_in, if any. */
  Instant expiryTimer;

  Instant nextInterval;

  /** Claims held now, point id to value, in claim order. */
  final Map<String, Value> held = new LinkedHashMap<>();

  /** The desired map {@link #held} was last made equal to (ClaimBook.set), if any. */
  Map<String, Value> heldAs;

  /** The points the rule's claims name, and the claim book's slots for them (made on use). */
  final String[] claimPoints;

  final ClaimSlot[] claimSlots;

  /**
   * A rule of one claim (most rules): that claim's point and, once the claim book has it, its slot,
   * read from this object instead of the two arrays; null for a rule of more or no claims.
   */
  final String soleClaimPoint;

  ClaimSlot soleSlot;

  /** Whether {@link #held} is not empty, read without it (ClaimBook keeps it). */
  boolean holds;

  /** Of a rule of one claim, {@code held.get(soleClaimPoint)}, read without the map. */
  Value soleHeld;

  /** Whether any claim has expires_in: without one, {@link #expiry} stays empty for good. */
  final boolean expires;

  /** When each held claim expires, if its claim has expires_in. */
  final Map<String, Instant> expiry = new LinkedHashMap<>();

  final Instant[] actionLastFired;
  final long[] actionSeq;

  /**
   * The generation action ids are numbered in (ActionId): a restart or new definition is a new one.
   */
  long generation = 1;

  /**
   * The freshness its claims are arbitrated with (ClaimBook.rekey) as epoch second and nano, and
   * the matched count: primitives, so that re-keying stores no reference.
   */
  long claimedSecond;

  int claimedNano;
  int claimedMatched;

  /**
   * Ring of recent evaluation instants (epoch nanos), oldest at {@link #evaluationHead} once full,
   * for the evaluation limit. It starts small and grows, up to the limit, only when it is full of
   * evaluations that all lie within the window: an evaluation it overwrites lies outside the window
   * and stays outside, so it always holds every evaluation the limit can count (a rule evaluated
   * once a second keeps 16 entries, not the limit's 600).
   */
  private long[] evaluations;

  private final int evaluationLimit;
  private int evaluationHead;
  private int evaluationCount;

  /**
   * While the ring is full, its oldest entry ({@code evaluations[evaluationHead]}): read just after
   * its neighbour is written, mostly from the same cache line, so that the next evaluation's check
   * reads this object and not the ring, which a large site's rules spread over megabytes.
   */
  private long oldestEvaluation;

  RuleRuntime(Rule rule, int index, PointTable points, int evaluationLimit) {
    this(rule, index, points, evaluationLimit, new java.util.HashMap<>(), new StepInstant());
  }

  /**
   * @param conditions the conditions of the rules made so far, each by itself: a condition equal to
   *     one of them (conditions are immutable values over input slots, so the many rules of a
   *     templated site have equal ones) is evaluated through that one, which stays in cache
   */
  RuleRuntime(
      Rule rule,
      int index,
      PointTable points,
      int evaluationLimit,
      Map<Condition, Condition> conditions,
      StepInstant step) {
    this.rule = rule;
    this.index = index;
    this.ruleId = rule.id();
    this.when = conditions.computeIfAbsent(rule.when(), c -> c);
    this.levelTriggered =
        rule.trigger() instanceof Trigger.OnTransition
            || rule.trigger() instanceof Trigger.OnInterval;
    this.hasHoldUntil = rule.holdUntil().isPresent();
    this.hasActions = !rule.actions().isEmpty();
    this.points = points;
    this.step = step;
    this.slots = rule.inputs().values().stream().mapToInt(points::indexOf).toArray();
    this.inputNames = rule.inputs().keySet().toArray(String[]::new);
    // An input read only by the latch's release (a reset button) does not gate warmup or input
    // loss: a reset nobody has pressed since start must not keep an e-stop rule from deciding.
    java.util.Set<String> releaseOnly =
        rule.holdUntil()
            .map(h -> new java.util.HashSet<>(h.inputsRead()))
            .orElse(new java.util.HashSet<>());
    releaseOnly.removeAll(rule.when().inputsRead());
    int[] gated =
        java.util.stream.IntStream.range(0, slots.length)
            .filter(i -> !releaseOnly.contains(inputNames[i]))
            .map(i -> slots[i])
            .toArray();
    this.positions = java.util.Arrays.copyOf(slots, slots.length + gated.length);
    System.arraycopy(gated, 0, positions, slots.length, gated.length);
    this.gatedFrom = slots.length;
    this.claimPoints =
        rule.claims().stream().map(io.sentinel.rule.ClaimSpec::pointId).toArray(String[]::new);
    this.claimSlots = new ClaimSlot[claimPoints.length];
    this.soleClaimPoint = claimPoints.length == 1 ? claimPoints[0] : null;
    this.expires = rule.claims().stream().anyMatch(c -> c.expiresIn().isPresent());
    this.actionLastFired = new Instant[rule.actions().size()];
    this.actionSeq = new long[rule.actions().size()];
    this.evaluationLimit = evaluationLimit;
    this.evaluations = new long[Math.min(evaluationLimit, 8)];
  }

  /** The state of the input in {@code slot} (the rule's declaration order). */
  @Override
  public PointState state(int slot) {
    return points.state(positions[slot]);
  }

  @Override
  public double number(int slot) {
    return points.number(positions[slot]);
  }

  @Override
  public int truth(int slot) {
    return points.truth(positions[slot]);
  }

  @Override
  public Quality quality(int slot) {
    return points.quality(positions[slot]);
  }

  @Override
  public Instant now() {
    return step.now();
  }

  /** Holds a claim on {@code point}: every write of {@link #held} is here or in {@link #letGo}. */
  void hold(String point, Value value) {
    held.put(point, value);
    if (point.equals(soleClaimPoint)) {
      soleHeld = value;
    }
  }

  void letGo(String point) {
    held.remove(point);
    if (point.equals(soleClaimPoint)) {
      soleHeld = null;
    }
  }

  /** The freshness its claims are arbitrated with, as an instant. */
  Instant claimedFreshness() {
    return Instant.ofEpochSecond(claimedSecond, claimedNano);
  }

  /**
   * Arbitrates its claims from now on by its inputs' newest change ({@link #freshness}) and its
   * current matched count; whether either moved. The inputs' instants are read as epoch nanos from
   * the point table, and as instants only when one lies beyond what those hold.
   */
  boolean claimCurrent() {
    long newest = 0; // the epoch, as freshness() starts from
    boolean exact = true;
    for (int k = gatedFrom; k < positions.length; k++) {
      long since = points.sinceNanos(positions[k]);
      exact &= EpochNanos.exact(since);
      if (since > newest) {
        newest = since;
      }
    }
    long second;
    int nano;
    if (exact) {
      second = newest / 1_000_000_000L;
      nano = (int) (newest % 1_000_000_000L);
    } else {
      Instant f = freshness();
      second = f.getEpochSecond();
      nano = f.getNano();
    }
    if (second == claimedSecond && nano == claimedNano && matched == claimedMatched) {
      return false;
    }
    claimedSecond = second;
    claimedNano = nano;
    claimedMatched = matched;
    return true;
  }

  boolean inputsMeetRequiredQuality() {
    for (int k = gatedFrom; k < positions.length; k++) {
      int point = positions[k];
      Quality q = points.quality(point);
      boolean ok =
          q == Quality.LIVE
              || (q == Quality.STALE
                  && rule.requiredQuality() == Rule.RequiredQuality.LIVE_OR_STALE);
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  boolean allInputsLiveSinceStart() {
    for (int k = gatedFrom; k < positions.length; k++) {
      int point = positions[k];
      if (!points.liveSinceStart(point)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the warmup policy is met by the inputs (the deadline is checked by the engine). */
  boolean warmupSatisfiedByInputs() {
    if (rule.warmup() instanceof Warmup.AllInputsKnown) {
      for (int k = gatedFrom; k < positions.length; k++) {
        int point = positions[k];
        Quality q = points.quality(point);
        if (q != Quality.LIVE && q != Quality.STALE) {
          return false;
        }
      }
      return true;
    }
    return allInputsLiveSinceStart();
  }

  /** The newest change among the inputs: arbitration's freshness key. */
  Instant freshness() {
    Instant newest = Instant.EPOCH;
    for (int k = gatedFrom; k < positions.length; k++) {
      int point = positions[k];
      Instant since = points.state(point).since();
      if (since.isAfter(newest)) {
        newest = since;
      }
    }
    return newest;
  }

  /** Takes over the state of the same rule (same definition) in the engine before a revision. */
  void takeOver(RuleRuntime previous) {
    state = previous.state;
    warmupFrom = previous.warmupFrom;
    beforeDisabled = previous.beforeDisabled;
    holdUntil = previous.holdUntil;
    lastCondition = previous.lastCondition;
    matched = previous.matched;
    latched = previous.latched;
    expiryTimer = previous.expiryTimer;
    nextInterval = previous.nextInterval;
    held.putAll(previous.held);
    holds = !held.isEmpty();
    soleHeld = soleClaimPoint == null ? null : held.get(soleClaimPoint);
    expiry.putAll(previous.expiry);
    System.arraycopy(previous.actionLastFired, 0, actionLastFired, 0, actionLastFired.length);
    System.arraycopy(previous.actionSeq, 0, actionSeq, 0, actionSeq.length);
    generation = previous.generation;
    claimedSecond = previous.claimedSecond;
    claimedNano = previous.claimedNano;
    claimedMatched = previous.claimedMatched;
    evaluations = previous.evaluations.clone(); // the same limits: both engines run prev.limits
    evaluationHead = previous.evaluationHead;
    evaluationCount = previous.evaluationCount;
    oldestEvaluation = previous.oldestEvaluation;
  }

  /**
   * Records an evaluation; false when it is one too many for the window: when the limit's number of
   * evaluations already lie within it (less than {@code windowNanos} before {@code atNanos}).
   */
  boolean recordEvaluation(long atNanos, long windowNanos) {
    if (evaluationCount == evaluations.length) {
      if (atNanos - oldestEvaluation < windowNanos) {
        if (evaluations.length == evaluationLimit) {
          return false;
        }
        growEvaluations();
        evaluationCount++;
      }
    } else {
      evaluationCount++;
    }
    evaluations[evaluationHead] = atNanos;
    evaluationHead = evaluationHead + 1 == evaluations.length ? 0 : evaluationHead + 1;
    if (evaluationCount == evaluations.length) {
      oldestEvaluation = evaluations[evaluationHead];
    }
    return true;
  }

  /** A full ring whose oldest entry lies within the window: twice the room, oldest first. */
  private void growEvaluations() {
    int n = evaluations.length;
    long[] grown = new long[Math.min(evaluationLimit, 2 * n)];
    System.arraycopy(evaluations, evaluationHead, grown, 0, n - evaluationHead);
    System.arraycopy(evaluations, 0, grown, n - evaluationHead, evaluationHead);
    evaluations = grown;
    evaluationHead = n;
  }

  void resetEvaluations() {
    evaluationCount = 0;
    evaluationHead = 0;
  }
}
