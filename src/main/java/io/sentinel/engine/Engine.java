package io.sentinel.engine;

import io.sentinel.arbitration.Arbiter;
import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.derived.DerivedLayer;
import io.sentinel.derived.Firing;
import io.sentinel.derived.LagTime;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointTable;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleChanges;
import io.sentinel.rule.RuleSet;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules engine: a pure, single-threaded function of the rule set, the timed sequence of samples
 * and the clock it is handed. Nothing here reads the wall clock or blocks.
 *
 * <p>Time is discrete: every distinct instant at which samples arrive or a timer falls due is one
 * step. A step applies its samples, lets derived points settle, then visits each affected rule
 * once. A pass hands the engine whatever arrived up to {@code now}; how samples are grouped into
 * passes never changes a decision, as long as a pass does not split the samples of one instant.
 */
public final class Engine {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([^}]*?)\\s*}}");

  private final RuleSet ruleSet;
  private final PointTable points;
  private final RuleRuntime[] rules;
  private final Map<String, RuleRuntime> byId = new HashMap<>();

  /** For each point, the rules that read it, and through which input slot. */
  private final int[][] dependentRules;

  private final int[][] dependentSlots;

  /**
   * For each point and dependent rule, whether a transition through that input slot triggers the
   * rule: {@link #NEVER}, {@link #ALWAYS} or {@link #CHECK} (an edge or quality trigger on that
   * input, which depends on the transition). Worked out once from the triggers, which do not
   * change.
   */
  private final byte[][] dependentTriggers;

  private static final byte NEVER = 0;
  private static final byte ALWAYS = 1;
  private static final byte CHECK = 2;
  private final EngineLimits limits;
  private final LagTime lagTime;
  private final DerivedLayer derived;
  private final Arbiter arbiter;
  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(Comparator.comparing(Timer::due).thenComparingLong(Timer::seq));
  private final Map<String, Decision> lastDecisions = new HashMap<>();
  private final Map<String, PointFlap> flaps = new HashMap<>();
  private final Set<String> pendingResumes = new LinkedHashSet<>();

  /** Operator overrides asked for (an empty value clears the point's) and those in force. */
  private final List<Map.Entry<String, Optional<OperatorOverride>>> pendingOverrides =
      new ArrayList<>();

  private final Map<String, OperatorOverride> overrides = new LinkedHashMap<>();
  private long timerSeq;

  private Instant clock;
  private final Instant start;
  private boolean activated;

  // Per-step scratch, reused to keep a step allocation-light.
  private final int[] touchedFlags;
  private final int[] touchedList;
  private int touchedCount;
  private Out out = new Out();

  /** The samples' point positions and the transitions they caused, in the step under way. */
  private int[] stepIndexes = new int[0];

  private Transition[] stepCaused = new Transition[0];

  private static final int TRIGGERED = 1;
  private static final int QUALITY = 2;
  private static final int TIMER = 4;
  private static final int ACTIVATION = 8;
  private static final int FORCED = 16;

  /** A timer of a rule ({@code rule >= 0}), a flap recheck ({@link #FLAP}) or an override's end. */
  private record Timer(Instant due, long seq, int rule, String point) {}

  private static final int FLAP = -1;
  private static final int OVERRIDE_END = -2;

  /** Recent claim changes of a point, for the flap limit. */
  private static final class PointFlap {
    final ArrayList<Instant> changes = new ArrayList<>();
    boolean frozen;
  }

  public Engine(RuleSet ruleSet, Instant start, StartMode mode) {
    this(ruleSet, start, mode, EngineLimits.DEFAULT);
  }

  public Engine(RuleSet ruleSet, Instant start, StartMode mode, EngineLimits limits) {
    this(
        ruleSet,
        new PointTable(ruleSet.registry(), start),
        new LagTime(start),
        start,
        start,
        limits);
    if (mode == StartMode.WARM) {
      points.markAllLiveSinceStart();
    }
    for (RuleRuntime r : rules) {
      r.warmupFrom = start;
      if (mode == StartMode.WARM && r.rule.enabled()) {
        r.state = RuleState.ACTIVE;
      } else {
        begin(r, start, "fail-safe at start");
      }
    }
    settleArbitration(start);
  }

  /** The parts every engine has: points, derived layer, arbiter, rules and their dependencies. */
  private Engine(
      RuleSet ruleSet,
      PointTable points,
      LagTime lagTime,
      Instant start,
      Instant clock,
      EngineLimits limits) {
    this.ruleSet = ruleSet;
    this.points = points;
    this.limits = limits;
    this.lagTime = lagTime;
    this.derived = new DerivedLayer(ruleSet.derived(), points, lagTime, clock);
    this.clock = clock;
    this.start = start;
    this.arbiter = new Arbiter(id -> specOf(id).releaseValue());
    List<Rule> list = ruleSet.rules();
    rules = new RuleRuntime[list.size()];
    List<List<int[]>> deps = new ArrayList<>();
    for (int p = 0; p < points.size(); p++) {
      deps.add(new ArrayList<>());
    }
    for (int i = 0; i < rules.length; i++) {
      RuleRuntime r = new RuleRuntime(list.get(i), i, points, limits.evaluationsPerRule());
      r.whenTrue = ruleClaims(r.rule);
      r.onLoss = lossClaims(r.rule);
      r.failSafe = r.rule.isFailSafe() ? failSafeClaims(r.rule) : Map.of();
      rules[i] = r;
      byId.put(r.rule.id(), r);
      for (int slot = 0; slot < r.slots.length; slot++) {
        deps.get(r.slots[slot]).add(new int[] {i, slot});
      }
    }
    dependentRules = new int[points.size()][];
    dependentSlots = new int[points.size()][];
    dependentTriggers = new byte[points.size()][];
    for (int p = 0; p < points.size(); p++) {
      List<int[]> d = deps.get(p);
      dependentRules[p] = d.stream().mapToInt(x -> x[0]).toArray();
      dependentSlots[p] = d.stream().mapToInt(x -> x[1]).toArray();
      dependentTriggers[p] = new byte[d.size()];
      for (int k = 0; k < d.size(); k++) {
        RuleRuntime r = rules[d.get(k)[0]];
        dependentTriggers[p][k] = triggerKind(r.rule.trigger(), r.inputNames[d.get(k)[1]]);
      }
    }
    touchedFlags = new int[rules.length];
    touchedList = new int[rules.length];
  }

  /**
   * A rule's first state: disabled, or in warmup from {@code r.warmupFrom} with a fail-safe
   * interlock asserting its protective value from that instant.
   */
  private void begin(RuleRuntime r, Instant t, String reason) {
    if (!r.rule.enabled()) {
      r.state = RuleState.DISABLED;
      return;
    }
    r.state = RuleState.WARMUP;
    if (r.rule.warmup() instanceof Warmup.Deadline d) {
      schedule(r.warmupFrom.plus(d.cap()), r.index);
    }
    if (r.rule.isFailSafe()) {
      // The protective state is the default: asserted from the first instant, before any
      // input is live and before any driver is up.
      setClaims(r, r.failSafe, t, reason);
    }
  }

  /** What an activation produced: the engine that runs the new set, and what changed at once. */
  public record Activation(Engine engine, RuleChanges changes, PassResult result) {}

  /**
   * Hands over to a new rule set between two passes, at this engine's clock (docs/revisions.md). A
   * rule whose definition hash is unchanged keeps its whole state (warmup left, claims, latch,
   * cooldowns, evaluation history, timers); toggling {@code enabled} keeps it too. A changed or new
   * rule starts in warmup from now, a fail-safe interlock asserting its protective value; the
   * claims of a changed or removed rule are released. Points and derived points whose definition is
   * unchanged keep their value, quality and state. This engine must not be used afterwards.
   */
  public Activation activate(RuleSet next) {
    Instant at = clock;
    Map<String, String> derivedBefore = new HashMap<>();
    ruleSet.derived().ordered().forEach(d -> derivedBefore.put(d.id(), d.definitionHash()));
    Map<String, String> derivedAfter = new HashMap<>();
    next.derived().ordered().forEach(d -> derivedAfter.put(d.id(), d.definitionHash()));
    PointTable table = new PointTable(next.registry(), at);
    table.takeOver(
        points,
        id ->
            specOf(id).sameDefinition(next.registry().find(id).orElseThrow())
                && java.util.Objects.equals(derivedBefore.get(id), derivedAfter.get(id)));
    Engine e = new Engine(next, table, lagTime, start, at, limits);
    e.derived.restore(derived.snapshot());
    RuleChanges changes = RuleChanges.between(ruleSet, next);
    e.takeOver(this, at);
    Out done = e.out;
    e.out = new Out();
    return new Activation(e, changes, done.result());
  }

  private void takeOver(Engine prev, Instant at) {
    timerSeq = prev.timerSeq;
    activated = prev.activated;
    lastDecisions.putAll(prev.lastDecisions);
    flaps.putAll(prev.flaps);
    Map<Integer, Integer> carriedIndex = new HashMap<>();
    for (RuleRuntime r : rules) {
      RuleRuntime o = prev.byId.get(r.rule.id());
      if (o != null && o.rule.definitionHash().equals(r.rule.definitionHash())) {
        r.takeOver(o);
        carriedIndex.put(o.index, r.index);
      }
    }
    Set<String> carried = new HashSet<>();
    carriedIndex.values().forEach(i -> carried.add(rules[i].rule.id()));
    // Claims kept as they were asserted: their freshness and matched count decide as before.
    for (Claim c : prev.arbiter.claims()) {
      if (carried.contains(c.ruleId())) {
        arbiter.assertClaim(c);
      } else if (c.ruleId().equals(OperatorOverride.RULE_ID)) {
        keepOverride(prev.overrides.get(c.pointId()), c, at);
      }
    }
    for (RuleRuntime o : prev.rules) {
      if (carried.contains(o.rule.id())) {
        continue;
      }
      String reason =
          byId.containsKey(o.rule.id())
              ? "rule changed by a revision: state reset"
              : "rule removed by a revision";
      for (String point : o.held.keySet()) {
        claimChanged(
            new ClaimChange(o.rule.id(), point, o.rule.band(), Optional.empty(), at, reason));
      }
    }
    for (Timer t : prev.timers) {
      if (t.rule < 0) {
        timers.add(t);
      } else if (carriedIndex.containsKey(t.rule)) {
        timers.add(new Timer(t.due, t.seq, carriedIndex.get(t.rule), null));
      }
    }
    prev.pendingResumes.stream().filter(byId::containsKey).forEach(pendingResumes::add);
    touchedCount = 0;
    for (RuleRuntime r : rules) {
      if (!carried.contains(r.rule.id())) {
        r.warmupFrom = at;
        begin(r, at, "fail-safe from activation");
        touch(r.index, ACTIVATION);
      } else if (r.state == RuleState.DISABLED && r.rule.enabled()) {
        enable(r, at);
        touch(r.index, ACTIVATION);
      } else if (r.state != RuleState.DISABLED && !r.rule.enabled()) {
        // Disabled: it stops deciding and lets go, but keeps its latch, cooldowns and warmup.
        r.beforeDisabled = r.state;
        r.state = RuleState.DISABLED;
        r.holdUntil = null;
        setClaims(r, Map.of(), at, "disabled by a revision");
      }
    }
    if (activated) {
      Arrays.sort(touchedList, 0, touchedCount);
      for (int k = 0; k < touchedCount; k++) {
        int idx = touchedList[k];
        int flags = touchedFlags[idx];
        touchedFlags[idx] = 0;
        RuleRuntime r = rules[idx];
        if (r.rule.trigger() instanceof Trigger.OnInterval iv && r.state != RuleState.DISABLED) {
          r.nextInterval = at.plus(iv.every());
          schedule(r.nextInterval, r.index);
        }
        visit(r, at, flags);
      }
    } else {
      for (int k = 0; k < touchedCount; k++) {
        touchedFlags[touchedList[k]] = 0;
      }
    }
    touchedCount = 0;
    settleArbitration(at);
  }

  /** Why a kept override no longer fits this engine's registry at {@code at}, if it does not. */
  private Optional<OperatorOverride.Rejection> misfit(OperatorOverride o, Instant at) {
    int p = points.indexOf(o.pointId());
    if (p < 0) {
      return Optional.of(
          new OperatorOverride.Rejection(
              "point", "point " + o.pointId() + " is no longer in the registry"));
    }
    return o.check(points.spec(p), at);
  }

  /**
   * An operator override outlives a revision, as its claim was asserted, while its point still
   * takes it (its end timer is carried with the other timers); otherwise it ends, and says so.
   */
  private void keepOverride(OperatorOverride o, Claim claim, Instant at) {
    int p = points.indexOf(o.pointId());
    Optional<OperatorOverride.Rejection> misfit = misfit(o, at);
    if (misfit.isEmpty()) {
      overrides.put(o.pointId(), o);
      arbiter.assertClaim(claim);
      return;
    }
    String why = "override ended by a revision: " + misfit.get().message();
    if (p >= 0) {
      claimChanged(
          new ClaimChange(
              OperatorOverride.RULE_ID, o.pointId(), Band.OPERATOR, Optional.empty(), at, why));
    }
    event("override-dropped", o.pointId(), why + " (set by " + o.by() + ")", at);
  }

  /** A rule a revision enables again: back to where it was when it was disabled. */
  private void enable(RuleRuntime r, Instant at) {
    RuleState back = r.beforeDisabled;
    r.beforeDisabled = null;
    if (back == null || back == RuleState.WARMUP) {
      if (back == null) {
        r.warmupFrom = at; // disabled since start: its warmup begins now
      }
      begin(r, at, "fail-safe from activation");
    } else if (back == RuleState.SUSPENDED) {
      r.state = RuleState.SUSPENDED;
      setClaims(r, r.onLoss, at, "suspended");
    } else {
      r.state = RuleState.ACTIVE;
    }
    if (r.latched) {
      setClaims(r, r.whenTrue, at, "latch kept while disabled");
    }
  }

  public RuleSet ruleSet() {
    return ruleSet;
  }

  private PointSpec specOf(String pointId) {
    return points.spec(points.indexOf(pointId));
  }

  public PointTable points() {
    return points;
  }

  /** The instant up to which the engine has processed time. */
  public Instant clock() {
    return clock;
  }

  /** When the engine next has something to do without new samples, if ever. */
  public Optional<Instant> nextDue() {
    return Optional.ofNullable(nextDueOrNull());
  }

  /** {@link #nextDue()} without the {@code Optional}s: null for never. */
  private Instant nextDueOrNull() {
    Timer next = timers.peek();
    Instant rule = next == null ? null : next.due();
    Instant memory = derived.nextDueOrNull();
    if (rule != null && memory != null) {
      return rule.isBefore(memory) ? rule : memory;
    }
    return rule != null ? rule : memory;
  }

  /** The derived points' state as JSON, to persist and restore across a restart. */
  public String derivedSnapshot() {
    return derived.snapshot();
  }

  /** Takes back derived state saved by {@link #derivedSnapshot()} (before the first pass). */
  public void restoreDerived(String json) {
    derived.restore(json);
  }

  /**
   * Takes back when an action last fired before a restart (before the first pass), so that its
   * cooldown runs on across the restart instead of starting afresh. False when the rule or the
   * action no longer exists.
   */
  public boolean restoreCooldown(String ruleId, int actionIndex, Instant lastFired) {
    RuleRuntime r = byId.get(ruleId);
    if (r == null || actionIndex < 0 || actionIndex >= r.actionLastFired.length) {
      return false;
    }
    Instant current = r.actionLastFired[actionIndex];
    if (current == null || lastFired.isAfter(current)) {
      r.actionLastFired[actionIndex] = lastFired;
    }
    return true;
  }

  public Optional<RuleStatus> status(String ruleId) {
    return Optional.ofNullable(byId.get(ruleId))
        .map(r -> new RuleStatus(r.rule.id(), r.state, r.lastCondition, r.held));
  }

  public List<RuleStatus> statuses() {
    return Arrays.stream(rules)
        .map(r -> new RuleStatus(r.rule.id(), r.state, r.lastCondition, r.held))
        .toList();
  }

  /** The current arbitration outcome of a point. */
  public Decision decision(String pointId) {
    return arbiter.decide(pointId);
  }

  /** What was last sent towards a point: the last decision that left arbitration, if any. */
  public Optional<Decision> output(String pointId) {
    return Optional.ofNullable(lastDecisions.get(pointId));
  }

  /**
   * Asks for a suspended rule to be resumed at the next pass (an operator's decision): it leaves
   * suspension, its evaluation count starts afresh and it decides again at once. A rule that is not
   * suspended by then is left as it is.
   */
  public void resume(String ruleId) {
    pendingResumes.add(ruleId);
  }

  /**
   * Asks for an operator override at the next pass; it replaces the point's override, if any. The
   * point must be registered and the override must pass {@link OperatorOverride#check} at the
   * engine's clock.
   *
   * @throws IllegalArgumentException naming the field at fault otherwise
   */
  public void override(OperatorOverride o) {
    int p = points.indexOf(o.pointId());
    if (p < 0) {
      throw new IllegalArgumentException("point: no point " + o.pointId() + " in the registry");
    }
    o.check(points.spec(p), clock)
        .ifPresent(
            r -> {
              throw new IllegalArgumentException(r.field() + ": " + r.message());
            });
    pendingOverrides.add(Map.entry(o.pointId(), Optional.of(o)));
  }

  /** Asks for the point's override to end at the next pass (nothing happens if it has none). */
  public void clearOverride(String pointId) {
    pendingOverrides.add(Map.entry(pointId, Optional.empty()));
  }

  /** The overrides in force, by point. */
  public Map<String, OperatorOverride> overrides() {
    return Map.copyOf(overrides);
  }

  /** Whether any override is in force, without a copy (asked after every pass). */
  public boolean hasOverrides() {
    return !overrides.isEmpty();
  }

  /**
   * Takes back the overrides in force before a restart (before the first pass), each with its
   * original end: it claims from the first pass, as if the gateway had not stopped. One that ended
   * while the gateway was down is not restored: an {@code override-expired} event and a release of
   * its claim (an audit record of kind {@code override}) say so. One whose point is gone, or that
   * no longer fits its point (direction, type, range), is dropped with an {@code override-dropped}
   * event naming why (and the release, when the point is still registered).
   *
   * @return what was not restored, one line each (the gateway logs them)
   */
  public List<String> restoreOverrides(java.util.Collection<OperatorOverride> kept) {
    List<String> notes = new ArrayList<>();
    for (OperatorOverride o : kept) {
      int p = points.indexOf(o.pointId());
      Optional<OperatorOverride.Rejection> misfit = misfit(o, clock);
      if (misfit.isEmpty()) {
        putOverride(o, clock, "override restored after a restart: by ", "override-restored");
        continue;
      }
      boolean expired = !o.until().isAfter(clock);
      String why =
          expired
              ? "override expired at " + o.until() + " while the gateway was down: not restored"
              : "override not restored: " + misfit.get().message();
      notes.add(o.pointId() + ": " + why);
      if (p >= 0) {
        // The claim held before the restart ends here, for the audit log; this engine never had
        // it, so arbitration has nothing to redo.
        out.claimChanges.add(
            new ClaimChange(
                OperatorOverride.RULE_ID,
                o.pointId(),
                Band.OPERATOR,
                Optional.empty(),
                clock,
                why + " (set by " + o.by() + ": " + o.reason() + ")"));
      }
      event(
          expired ? "override-expired" : "override-dropped",
          o.pointId(),
          why + " (set by " + o.by() + "): the point follows its rules",
          clock);
    }
    settleArbitration(clock);
    return notes;
  }

  /** Every point with at least one claim, sorted (the claims themselves: {@link #decision}). */
  public List<String> claimedPoints() {
    return arbiter.claimedPoints();
  }

  /**
   * Processes everything up to {@code now}: the samples (each at its own instant, which must not
   * lie before the engine's clock or after {@code now}) and the timers due.
   *
   * @param ingestLagging whether the runtime reports ingest lag over this pass; warmup deadlines do
   *     not run down while it does
   */
  public PassResult pass(Instant now, List<Sample> samples, boolean ingestLagging) {
    if (now.isBefore(clock)) {
      throw new IllegalArgumentException("time runs forward: " + now + " is before " + clock);
    }
    if (lagTime.setLagging(ingestLagging)) {
      rescheduleDeadlines(clock);
      derived.lagEnded(clock);
    }
    List<Sample> ordered = new ArrayList<>(samples);
    ordered.sort(Comparator.comparing(Sample::at));
    if (!ordered.isEmpty() && ordered.get(0).at().isBefore(clock)) {
      throw new IllegalArgumentException(
          "sample of "
              + ordered.get(0).pointId()
              + " at "
              + ordered.get(0).at()
              + " lies before "
              + clock);
    }
    if (!ordered.isEmpty() && ordered.get(ordered.size() - 1).at().isAfter(now)) {
      throw new IllegalArgumentException("a sample lies after now " + now);
    }
    int i = 0;
    while (true) {
      Instant nextSample = i < ordered.size() ? ordered.get(i).at() : null;
      Instant nextTimer = nextDueOrNull();
      if (nextTimer != null && nextTimer.isAfter(now)) {
        nextTimer = null;
      }
      if (nextSample == null && nextTimer == null) {
        break;
      }
      Instant t =
          nextSample == null
              ? nextTimer
              : nextTimer == null || nextSample.isBefore(nextTimer) ? nextSample : nextTimer;
      int j = i;
      while (j < ordered.size() && ordered.get(j).at().equals(t)) {
        j++;
      }
      step(t, ordered.subList(i, j));
      i = j;
    }
    if (!activated || operatorPending()) {
      // Nothing else to step through: an operator's request still takes effect in this pass.
      step(now, List.of());
    }
    advance(now);
    Out done = out;
    out = new Out();
    return done.result();
  }

  private void advance(Instant t) {
    if (t.isAfter(clock)) {
      lagTime.advance(t);
      clock = t;
    }
  }

  private boolean operatorPending() {
    return !pendingResumes.isEmpty() || !pendingOverrides.isEmpty();
  }

  private void step(Instant t, List<Sample> samples) {
    advance(t);
    touchedCount = 0;
    if (operatorPending()) {
      applyOperatorRequests(t);
    }
    if (!activated) {
      activated = true;
      for (RuleRuntime r : rules) {
        touch(r.index, ACTIVATION);
        if (r.rule.trigger() instanceof Trigger.OnInterval iv && r.state != RuleState.DISABLED) {
          r.nextInterval = t.plus(iv.every());
          schedule(r.nextInterval, r.index);
        }
      }
    }
    while (!timers.isEmpty() && !timers.peek().due().isAfter(t)) {
      Timer timer = timers.poll();
      if (timer.rule >= 0) {
        touch(timer.rule, TIMER);
      } else if (timer.rule == OVERRIDE_END) {
        endOverride(timer.point, t, false);
      } else {
        recheckFlap(timer.point, t);
      }
    }
    if (stepIndexes.length < samples.size()) {
      stepIndexes = new int[samples.size()];
      stepCaused = new Transition[samples.size()];
    }
    int[] indexes = stepIndexes;
    Transition[] caused = stepCaused;
    for (int k = 0; k < samples.size(); k++) {
      Sample s = samples.get(k);
      indexes[k] = points.indexOf(s.pointId());
      if (indexes[k] < 0) {
        throw new IllegalArgumentException("unknown point " + s.pointId());
      }
      caused[k] = points.applyOrNull(indexes[k], s.value(), s.quality(), s.at());
    }
    // The watchdog and derived points settle before any rule sees the step.
    List<Transition> settled = derived.step(t, samples, indexes, caused);
    out.firings.addAll(derived.drainFirings());
    for (int k = 0; k < samples.size(); k++) {
      if (caused[k] != null) {
        out.transitions.add(caused[k]);
        touchDependents(indexes[k], caused[k]);
      }
    }
    for (int k = 0; k < settled.size(); k++) {
      out.transitions.add(settled.get(k));
      touchDependents(derived.stepPoint(k), settled.get(k));
    }
    // Rules are visited in rule-set order, each once per step, after every input has settled: no
    // rule sees another rule's claim from the same step.
    Arrays.sort(touchedList, 0, touchedCount);
    for (int k = 0; k < touchedCount; k++) {
      int idx = touchedList[k];
      int flags = touchedFlags[idx];
      touchedFlags[idx] = 0;
      visit(rules[idx], t, flags);
    }
    settleArbitration(t);
  }

  /** Marks the rules that a transition of point {@code p} triggers or whose input quality moved. */
  private void touchDependents(int p, Transition tr) {
    int[] deps = dependentRules[p];
    byte[] kinds = dependentTriggers[p];
    for (int k = 0; k < deps.length; k++) {
      int flags = tr.qualityChanged() ? QUALITY : 0;
      if (kinds[k] == ALWAYS
          || kinds[k] == CHECK
              && triggers(
                  rules[deps[k]].rule.trigger(),
                  rules[deps[k]].inputNames[dependentSlots[p][k]],
                  tr)) {
        flags |= TRIGGERED;
      }
      if (flags != 0) {
        touch(deps[k], flags);
      }
    }
  }

  /** What {@link #triggers} can tell of a rule's input slot before any transition. */
  private static byte triggerKind(Trigger trigger, String input) {
    if (trigger instanceof Trigger.OnTransition t) {
      return t.of().contains(input) ? ALWAYS : NEVER;
    }
    if (trigger instanceof Trigger.OnEdge e) {
      return e.of().equals(input) ? CHECK : NEVER;
    }
    if (trigger instanceof Trigger.OnQuality q) {
      return q.of().equals(input) ? CHECK : NEVER;
    }
    return NEVER;
  }

  private void touch(int rule, int flags) {
    if (touchedFlags[rule] == 0) {
      touchedList[touchedCount++] = rule;
    }
    touchedFlags[rule] |= flags;
  }

  private static boolean triggers(Trigger trigger, String input, Transition tr) {
    if (trigger instanceof Trigger.OnTransition t) {
      return t.of().contains(input);
    }
    if (trigger instanceof Trigger.OnEdge e) {
      // A value kept from before a restart is no reading: moving away from it is no edge.
      if (!e.of().equals(input)
          || !tr.valueChanged()
          || !tr.previous().value().isPresent()
          || tr.previous().quality() == Quality.RESTORED) {
        return false;
      }
      int direction = compare(tr.previous().value(), tr.current().value());
      return e.edge() == Trigger.Edge.RISING ? direction > 0 : direction < 0;
    }
    if (trigger instanceof Trigger.OnQuality q) {
      return q.of().equals(input) && tr.qualityChanged() && q.matches(tr.current().quality());
    }
    return false;
  }

  /** Positive when the value rose (false to true, or a larger number). */
  private static int compare(Value before, Value after) {
    if (before instanceof Value.Bool b && after instanceof Value.Bool a) {
      return Boolean.compare(a.value(), b.value());
    }
    if (before instanceof Value.Num b && after instanceof Value.Num a) {
      return Double.compare(a.value(), b.value());
    }
    return 0;
  }

  private void visit(RuleRuntime r, Instant t, int flags) {
    expireClaims(r, t);
    if (r.nextInterval != null && !t.isBefore(r.nextInterval) && r.state != RuleState.DISABLED) {
      while (!t.isBefore(r.nextInterval)) {
        r.nextInterval = r.nextInterval.plus(((Trigger.OnInterval) r.rule.trigger()).every());
      }
      schedule(r.nextInterval, r.index);
      flags |= TRIGGERED;
    }
    switch (r.state) {
      case DISABLED:
        return;
      case SUSPENDED:
        if (r.holdUntil != null && !t.isBefore(r.holdUntil)) {
          r.holdUntil = null;
          setClaims(r, Map.of(), t, "hold_max after suspension");
          event("hold-expired", r.rule.id(), "held claims released at hold_max while suspended", t);
        }
        return;
      case WARMUP:
        if (!leaveWarmup(r, t, (flags & TIMER) != 0)) {
          return;
        }
        flags |= FORCED;
        break;
      default:
        break;
    }
    if ((flags & ACTIVATION) != 0) {
      flags |= FORCED;
    }
    if (!r.inputsMeetRequiredQuality()) {
      onInputLoss(r, t);
      return;
    }
    if (r.state == RuleState.HOLDING || r.state == RuleState.INPUT_LOST) {
      r.state = RuleState.ACTIVE;
      r.holdUntil = null;
      event("inputs-restored", r.rule.id(), "inputs meet " + quality(r) + " again", t);
      flags |= FORCED;
    }
    // A level-triggered rule (transition, interval) re-derives its claims whenever it starts
    // deciding again. Edge and quality triggers stay event-like: leaving warmup is not an edge.
    boolean levelTriggered =
        r.rule.trigger() instanceof Trigger.OnTransition
            || r.rule.trigger() instanceof Trigger.OnInterval;
    if ((flags & TRIGGERED) == 0 && !((flags & FORCED) != 0 && levelTriggered)) {
      return;
    }
    evaluate(r, t);
  }

  private boolean leaveWarmup(RuleRuntime r, Instant t, boolean fromTimer) {
    String how;
    if (r.rule.isFailSafe() && !r.allInputsLiveSinceStart()) {
      // A fail-safe interlock lets go of its protective value only on genuinely live inputs, never
      // on the first good reading nor on a deadline.
      return false;
    }
    if (r.rule.warmup() instanceof Warmup.Deadline && r.warmupSatisfiedByInputs()) {
      how = "all inputs live since start";
    } else if (r.rule.warmup() instanceof Warmup.Deadline d) {
      if (lagTime.effective(r.warmupFrom, t).compareTo(d.cap()) < 0) {
        if (fromTimer) {
          lagTime.whenElapsed(r.warmupFrom, d.cap(), t).ifPresent(due -> schedule(due, r.index));
        }
        return false;
      }
      how = "deadline of " + d.cap() + " reached";
    } else if (r.warmupSatisfiedByInputs()) {
      how =
          r.rule.warmup() instanceof Warmup.AllInputsKnown
              ? "all inputs known"
              : "all inputs live since start";
    } else {
      return false;
    }
    r.state = RuleState.ACTIVE;
    event("warmup-left", r.rule.id(), how, t);
    return true;
  }

  private void rescheduleDeadlines(Instant from) {
    for (RuleRuntime r : rules) {
      if (r.state == RuleState.WARMUP && r.rule.warmup() instanceof Warmup.Deadline d) {
        lagTime.whenElapsed(r.warmupFrom, d.cap(), from).ifPresent(due -> schedule(due, r.index));
      }
    }
  }

  private void onInputLoss(RuleRuntime r, Instant t) {
    Rule rule = r.rule;
    boolean firstLoss = r.state == RuleState.ACTIVE;
    if (r.latched) {
      // A latch (an e-stop hold) is a safety state: losing an input does not release it.
      r.state = RuleState.INPUT_LOST;
      if (firstLoss) {
        event("input-lost", rule.id(), "inputs lost while latched: the claims stay held", t);
      }
      return;
    }
    if (rule.isFailSafe()) {
      r.state = RuleState.INPUT_LOST;
      setClaims(r, r.failSafe, t, "fail-safe on input loss");
    } else if (rule.onInputLoss() instanceof InputLoss.Hold hold) {
      if (r.state == RuleState.ACTIVE) {
        r.state = RuleState.HOLDING;
        r.holdUntil = t.plus(hold.max());
        schedule(r.holdUntil, r.index);
      } else if (r.state == RuleState.HOLDING && !t.isBefore(r.holdUntil)) {
        r.state = RuleState.INPUT_LOST;
        r.holdUntil = null;
        setClaims(r, Map.of(), t, "hold_max reached");
        event("hold-expired", rule.id(), "held claims released at hold_max " + hold.max(), t);
      }
    } else {
      r.state = RuleState.INPUT_LOST;
      setClaims(r, r.onLoss, t, "input loss");
    }
    if (firstLoss) {
      event(
          "input-lost",
          rule.id(),
          "inputs no longer meet "
              + quality(r)
              + ": "
              + rule.onInputLoss().getClass().getSimpleName().toLowerCase(),
          t);
    }
  }

  private static String quality(RuleRuntime r) {
    return "required_quality " + r.rule.requiredQuality().name().toLowerCase();
  }

  /** What a rule claims when it lets go because of its inputs or a suspension. */
  private static Map<String, Value> lossClaims(Rule rule) {
    if (rule.isFailSafe()) {
      return failSafeClaims(rule);
    }
    if (rule.onInputLoss() instanceof InputLoss.Assert a) {
      Map<String, Value> m = new LinkedHashMap<>();
      rule.claims().forEach(c -> m.put(c.pointId(), a.value()));
      return m;
    }
    return Map.of();
  }

  private static Map<String, Value> failSafeClaims(Rule rule) {
    Map<String, Value> m = new LinkedHashMap<>();
    Value v = rule.failSafe().orElseThrow().value();
    rule.claims().forEach(c -> m.put(c.pointId(), v));
    return m;
  }

  private void evaluate(RuleRuntime r, Instant t) {
    long nanos = epochNanos(t);
    if (!r.recordEvaluation(nanos, limits.evaluationWindow().toNanos())) {
      suspend(r, t);
      return;
    }
    r.now = t;
    if (r.latched) {
      if (!r.rule.holdUntil().orElseThrow().test(r)) {
        return; // latched: the claims stay until the release condition holds
      }
      r.latched = false;
      event("latch-released", r.rule.id(), "hold_until holds: the rule decides again", t);
    }
    boolean wasTrue = r.lastCondition.orElse(false);
    boolean condition = r.rule.when().test(r);
    r.lastCondition = Optional.of(condition);
    r.matched = condition ? r.rule.when().matched(r) : 0;
    if (!condition) {
      setClaims(r, Map.of(), t, "condition false");
      return;
    }
    if (r.rule.holdUntil().isPresent()) {
      r.latched = true;
      event("latch-set", r.rule.id(), "claims held until its hold_until condition holds", t);
    }
    setClaims(r, r.whenTrue, t, "condition true");
    // A claim still wanted is refreshed: expires_in bounds a rule that stopped evaluating.
    for (ClaimSpec c : r.rule.claims()) {
      if (c.expiresIn().isPresent()) {
        r.expiry.put(c.pointId(), t.plus(c.expiresIn().get()));
      }
    }
    scheduleExpiry(r);
    fireActions(r, t, wasTrue);
  }

  private static Map<String, Value> ruleClaims(Rule rule) {
    Map<String, Value> desired = new LinkedHashMap<>();
    for (ClaimSpec c : rule.claims()) {
      desired.put(c.pointId(), c.value());
    }
    return desired;
  }

  /** The rules whose hold_until latch is set: state to keep across a restart. */
  public java.util.Set<String> latchedRules() {
    java.util.Set<String> out = new java.util.TreeSet<>();
    for (RuleRuntime r : rules) {
      if (r.latched) {
        out.add(r.rule.id());
      }
    }
    return out;
  }

  /**
   * Sets the latches saved before a restart (before the first pass): a latched rule asserts its
   * claims from the first instant, like a fail-safe interlock, until its hold_until holds.
   */
  public void restoreLatches(java.util.Set<String> ruleIds) {
    for (String id : ruleIds) {
      RuleRuntime r = byId.get(id);
      if (r != null && r.rule.holdUntil().isPresent() && r.state != RuleState.DISABLED) {
        r.latched = true;
        setClaims(r, r.whenTrue, clock, "latch restored");
      }
    }
    settleArbitration(clock);
  }

  private void fireActions(RuleRuntime r, Instant t, boolean wasTrue) {
    List<ActionSpec> actions = r.rule.actions();
    for (int a = 0; a < actions.size(); a++) {
      ActionSpec spec = actions.get(a);
      if (spec.onRise() && wasTrue) {
        continue;
      }
      Instant last = r.actionLastFired[a];
      if (last != null && t.isBefore(last.plus(spec.cooldown()))) {
        continue;
      }
      r.actionLastFired[a] = t;
      long seq = ++r.actionSeq[a];
      Map<String, String> fields = new LinkedHashMap<>(spec.fields());
      fields.computeIfPresent("message", (k, m) -> render(m, r, spec));
      out.actions.add(
          new ActionFired(r.rule.id() + "/" + a + "/" + seq, r.rule.id(), spec, fields, t));
    }
  }

  private static String render(String template, RuleRuntime r, ActionSpec spec) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      String value;
      if (name.equals("rule")) {
        value = r.rule.id();
      } else if (spec.fields().containsKey(name)) {
        value = spec.fields().get(name);
      } else {
        int dot = name.lastIndexOf('.');
        int slot = new ArrayList<>(r.rule.inputs().keySet()).indexOf(name.substring(0, dot));
        var state = r.state(slot);
        value = name.endsWith(".quality") ? state.quality().wireName() : state.value().toString();
      }
      m.appendReplacement(b, Matcher.quoteReplacement(value));
    }
    m.appendTail(b);
    return b.toString();
  }

  private void suspend(RuleRuntime r, Instant t) {
    r.state = RuleState.SUSPENDED;
    event(
        "rule-suspended",
        r.rule.id(),
        "more than "
            + limits.evaluationsPerRule()
            + " evaluations within "
            + limits.evaluationWindow()
            + "; released under on_input_loss until an operator resumes it",
        t);
    out.selfPoints.add(new SelfPoint("rule." + r.rule.id() + ".suspended", Value.TRUE, t));
    if (!r.rule.isFailSafe() && r.rule.onInputLoss() instanceof InputLoss.Hold hold) {
      r.holdUntil = t.plus(hold.max());
      schedule(r.holdUntil, r.index);
    } else {
      setClaims(r, r.onLoss, t, "suspended");
    }
  }

  private void resumeRule(RuleRuntime r, Instant t) {
    if (r.state != RuleState.SUSPENDED) {
      return;
    }
    r.state = RuleState.ACTIVE;
    r.holdUntil = null;
    r.resetEvaluations();
    event(ControlEvent.RULE_RESUMED, r.rule.id(), "resumed by an operator", t);
    out.selfPoints.add(new SelfPoint("rule." + r.rule.id() + ".suspended", Value.FALSE, t));
    touch(r.index, ACTIVATION);
  }

  /** Resumes and overrides asked for since the last pass, at the first instant of this one. */
  private void applyOperatorRequests(Instant t) {
    for (String id : pendingResumes) {
      Optional.ofNullable(byId.get(id)).ifPresent(r -> resumeRule(r, t));
    }
    pendingResumes.clear();
    for (Map.Entry<String, Optional<OperatorOverride>> request : pendingOverrides) {
      if (request.getValue().isEmpty()) {
        endOverride(request.getKey(), t, true);
        continue;
      }
      OperatorOverride o = request.getValue().get();
      if (!o.until().isAfter(t)) {
        continue; // over before it began (the pass came later than asked)
      }
      putOverride(o, t, "override by ", "override-set");
    }
    pendingOverrides.clear();
  }

  /** An override takes hold at {@code t}: its claim, its audit reason, its event and its end. */
  private void putOverride(OperatorOverride o, Instant t, String reasonPrefix, String eventKind) {
    overrides.put(o.pointId(), o);
    arbiter.assertClaim(
        new Claim(
            OperatorOverride.RULE_ID,
            o.pointId(),
            Band.OPERATOR,
            OperatorOverride.PRIORITY,
            o.value(),
            t,
            0));
    claimChanged(
        new ClaimChange(
            OperatorOverride.RULE_ID,
            o.pointId(),
            Band.OPERATOR,
            Optional.of(o.value()),
            t,
            reasonPrefix + o.by() + " until " + o.until() + ": " + o.reason()));
    event(
        eventKind,
        o.pointId(),
        o.pointId() + " = " + o.value() + " by " + o.by() + " until " + o.until(),
        t);
    timers.add(new Timer(o.until(), timerSeq++, OVERRIDE_END, o.pointId()));
  }

  /**
   * Ends a point's override when it is cleared, or at its end (a replaced one's timer is stale).
   */
  private void endOverride(String pointId, Instant t, boolean cleared) {
    OperatorOverride o = overrides.get(pointId);
    if (o == null || (!cleared && t.isBefore(o.until()))) {
      return;
    }
    overrides.remove(pointId);
    arbiter.release(OperatorOverride.RULE_ID, pointId);
    String reason = cleared ? "override cleared" : "override expired";
    claimChanged(
        new ClaimChange(
            OperatorOverride.RULE_ID, pointId, Band.OPERATOR, Optional.empty(), t, reason));
    event(
        cleared ? "override-cleared" : "override-expired",
        pointId,
        reason + " (set by " + o.by() + "): the point follows its rules again",
        t);
  }

  private void expireClaims(RuleRuntime r, Instant t) {
    if (r.expiryTimer != null && !t.isBefore(r.expiryTimer)) {
      r.expiryTimer = null;
    }
    if (r.expiry.isEmpty()) {
      return;
    }
    List<String> expired = new ArrayList<>();
    r.expiry.forEach(
        (point, at) -> {
          if (!t.isBefore(at)) {
            expired.add(point);
          }
        });
    for (String point : expired) {
      r.expiry.remove(point);
      if (r.held.containsKey(point)) {
        Map<String, Value> desired = new LinkedHashMap<>(r.held);
        desired.remove(point);
        setClaims(r, desired, t, "expires_in reached");
        event(
            "claim-expired",
            r.rule.id(),
            "claim on " + point + " expired: the rule did not re-evaluate it in time",
            t);
      }
    }
    scheduleExpiry(r);
  }

  /**
   * One pending timer per rule for its claims' expiry: a refresh only moves expiry later, so the
   * pending timer comes first, finds nothing expired and sets the next one.
   */
  private void scheduleExpiry(RuleRuntime r) {
    if (r.expiry.isEmpty()) {
      return;
    }
    Instant earliest = java.util.Collections.min(r.expiry.values());
    if (r.expiryTimer == null || earliest.isBefore(r.expiryTimer)) {
      r.expiryTimer = earliest;
      schedule(earliest, r.index);
    }
  }

  /** The claim diff: only what changed leaves the rule. */
  private void setClaims(RuleRuntime r, Map<String, Value> desired, Instant t, String reason) {
    if (desired.equals(r.held)) {
      return; // the common case of a re-evaluation with the same answer: nothing leaves the rule
    }
    Rule rule = r.rule;
    if (!desired.keySet().containsAll(r.held.keySet())) {
      for (String point : List.copyOf(r.held.keySet())) {
        if (!desired.containsKey(point)) {
          r.held.remove(point);
          r.expiry.remove(point);
          arbiter.release(rule.id(), point);
          claimChanged(new ClaimChange(rule.id(), point, rule.band(), Optional.empty(), t, reason));
        }
      }
    }
    for (Map.Entry<String, Value> e : desired.entrySet()) {
      Value before = r.held.get(e.getKey());
      if (e.getValue().equals(before)) {
        continue;
      }
      r.held.put(e.getKey(), e.getValue());
      arbiter.assertClaim(
          new Claim(
              rule.id(),
              e.getKey(),
              rule.band(),
              rule.priority(),
              e.getValue(),
              r.freshness(),
              r.matched));
      claimChanged(
          new ClaimChange(
              rule.id(), e.getKey(), rule.band(), Optional.of(e.getValue()), t, reason));
    }
  }

  private void claimChanged(ClaimChange change) {
    out.claimChanges.add(change);
    out.changedPoints.add(change.pointId());
    PointFlap flap = flaps.computeIfAbsent(change.pointId(), k -> new PointFlap());
    flap.changes.add(change.at());
    trimFlap(flap, change.at());
    if (!flap.frozen && flap.changes.size() > limits.claimChangesPerPoint()) {
      flap.frozen = true;
      event(
          "point-flapping",
          change.pointId(),
          "more than "
              + limits.claimChangesPerPoint()
              + " claim changes within "
              + limits.claimWindow()
              + "; output held (interlock claims still pass)",
          change.at());
      out.selfPoints.add(
          new SelfPoint("point." + change.pointId() + ".flapping", Value.TRUE, change.at()));
      timers.add(
          new Timer(
              flap.changes.get(0).plus(limits.claimWindow()), timerSeq++, FLAP, change.pointId()));
    }
  }

  private void trimFlap(PointFlap flap, Instant t) {
    Instant horizon = t.minus(limits.claimWindow());
    while (!flap.changes.isEmpty() && !flap.changes.get(0).isAfter(horizon)) {
      flap.changes.remove(0);
    }
  }

  private void recheckFlap(String pointId, Instant t) {
    PointFlap flap = flaps.get(pointId);
    if (flap == null || !flap.frozen) {
      return;
    }
    trimFlap(flap, t);
    if (flap.changes.size() > limits.claimChangesPerPoint()) {
      timers.add(
          new Timer(flap.changes.get(0).plus(limits.claimWindow()), timerSeq++, FLAP, pointId));
      return;
    }
    flap.frozen = false;
    event(
        "point-settled",
        pointId,
        "claim changes back under the limit; output follows arbitration again",
        t);
    out.selfPoints.add(new SelfPoint("point." + pointId + ".flapping", Value.FALSE, t));
    out.changedPoints.add(pointId);
  }

  private void settleArbitration(Instant t) {
    for (String pointId : out.changedPoints) {
      Decision d = arbiter.decide(pointId);
      Decision last = lastDecisions.get(pointId);
      if (last != null && last.sameOutcome(d)) {
        continue;
      }
      PointFlap flap = flaps.get(pointId);
      boolean interlock = d.winner().filter(c -> c.band() == Band.INTERLOCK).isPresent();
      if (flap != null && flap.frozen && !interlock) {
        continue;
      }
      if (last == null && d.winner().isEmpty()) {
        continue; // nothing was ever decided for this point: nothing to release
      }
      lastDecisions.put(pointId, d);
      out.decisions.add(d);
    }
    out.changedPoints.clear();
  }

  private void event(String kind, String subject, String message, Instant t) {
    out.events.add(new ControlEvent(kind, subject, message, t));
  }

  private void schedule(Instant due, int rule) {
    timers.add(new Timer(due, timerSeq++, rule, null));
  }

  private static long epochNanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  /** The outputs of the pass being run. */
  private static final class Out {
    final List<Transition> transitions = new ArrayList<>();
    final List<ClaimChange> claimChanges = new ArrayList<>();
    final List<Decision> decisions = new ArrayList<>();
    final List<ActionFired> actions = new ArrayList<>();
    final List<ControlEvent> events = new ArrayList<>();
    final List<SelfPoint> selfPoints = new ArrayList<>();
    final List<Firing> firings = new ArrayList<>();
    final Set<String> changedPoints = new LinkedHashSet<>();

    PassResult result() {
      return new PassResult(
          transitions, claimChanges, decisions, actions, events, selfPoints, firings);
    }
  }
}
