package io.sentinel.engine;

import io.sentinel.derived.LagTime;
import io.sentinel.point.EpochNanos;
import io.sentinel.point.Value;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Rule;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one rule does when a step visits it: warmup, input loss and hold, suspension by the
 * evaluation limit, the hold_until latch, evaluation and the claims that follow from each state.
 */
final class RulePolicy {
  private static final Optional<Boolean> HELD = Optional.of(true);
  private static final Optional<Boolean> NOT_HELD = Optional.of(false);

  private final EngineLimits limits;
  private final LagTime lagTime;
  private final ClaimBook claims;
  private final Timers timers;
  private final Triggers triggers;
  private final RuleActions actions;
  private final PassOutputs out;
  private final long windowNanos;
  private final StepInstant step;

  RulePolicy(
      EngineLimits limits,
      LagTime lagTime,
      ClaimBook claims,
      Timers timers,
      Triggers triggers,
      PassOutputs out,
      StepInstant step) {
    this.limits = limits;
    this.lagTime = lagTime;
    this.claims = claims;
    this.timers = timers;
    this.triggers = triggers;
    this.actions = new RuleActions(out);
    this.out = out;
    this.windowNanos = limits.evaluationWindow().toNanos();
    this.step = step;
  }

  /** Works out the claims a rule holds in each state, once. */
  static void prepare(RuleRuntime r) {
    r.whenTrue = ruleClaims(r.rule);
    r.soleWant = r.soleClaimPoint == null ? null : r.whenTrue.get(r.soleClaimPoint);
    r.onLoss = lossClaims(r.rule);
    r.failSafe = r.rule.isFailSafe() ? failSafeClaims(r.rule) : Map.of();
  }

  /**
   * A rule's first state: disabled, or in warmup from {@code r.warmupFrom} with a fail-safe
   * interlock asserting its protective value from that instant.
   */
  void begin(RuleRuntime r, Instant t, String reason) {
    if (!r.rule.enabled()) {
      r.state = RuleState.DISABLED;
      return;
    }
    r.state = RuleState.WARMUP;
    if (r.rule.warmup() instanceof Warmup.Deadline d) {
      timers.rule(r.warmupFrom.plus(d.cap()), r.index);
    }
    if (r.rule.isFailSafe()) {
      // The protective state is the default: asserted from the first instant, before any
      // input is live and before any driver is up.
      claims.set(r, r.failSafe, t, reason);
    }
  }

  /** A rule a revision enables again: back to where it was when it was disabled. */
  void enable(RuleRuntime r, Instant at) {
    RuleState back = r.beforeDisabled;
    r.beforeDisabled = null;
    if (back == null || back == RuleState.WARMUP) {
      if (back == null) {
        r.warmupFrom = at; // disabled since start: its warmup begins now
      }
      begin(r, at, "fail-safe from activation");
    } else if (back == RuleState.SUSPENDED) {
      r.state = RuleState.SUSPENDED;
      claims.set(r, r.onLoss, at, "suspended");
    } else {
      r.state = RuleState.ACTIVE;
    }
    if (r.latched) {
      claims.set(r, r.whenTrue, at, "latch kept while disabled");
    }
  }

  /** A revision disables the rule: it stops deciding and lets go, but keeps latch and warmup. */
  void disable(RuleRuntime r, Instant at) {
    r.beforeDisabled = r.state;
    r.state = RuleState.DISABLED;
    r.holdUntil = null;
    claims.set(r, Map.of(), at, "disabled by a revision");
  }

  /** An interval rule's next evaluation, from {@code t}. */
  void startInterval(RuleRuntime r, Instant t) {
    if (r.rule.trigger() instanceof Trigger.OnInterval iv && r.state != RuleState.DISABLED) {
      r.nextInterval = t.plus(iv.every());
      timers.rule(r.nextInterval, r.index);
    }
  }

  /** Visits a rule at {@code t} for the reasons in {@code flags} ({@link Triggers}). */
  void visit(RuleRuntime r, Instant t, int flags) {
    claims.expire(r, t);
    if (r.nextInterval != null && !t.isBefore(r.nextInterval) && r.state != RuleState.DISABLED) {
      while (!t.isBefore(r.nextInterval)) {
        r.nextInterval = r.nextInterval.plus(((Trigger.OnInterval) r.rule.trigger()).every());
      }
      timers.rule(r.nextInterval, r.index);
      flags |= Triggers.TRIGGERED;
    }
    switch (r.state) {
      case DISABLED:
        return;
      case SUSPENDED:
        if (r.holdUntil != null && !t.isBefore(r.holdUntil)) {
          r.holdUntil = null;
          claims.set(r, Map.of(), t, "hold_max after suspension");
          out.event(
              "hold-expired", r.rule.id(), "held claims released at hold_max while suspended", t);
        }
        return;
      case WARMUP:
        if (!leaveWarmup(r, t, (flags & Triggers.TIMER) != 0)) {
          return;
        }
        flags |= Triggers.FORCED;
        break;
      default:
        break;
    }
    if ((flags & Triggers.ACTIVATION) != 0) {
      flags |= Triggers.FORCED;
    }
    if (!r.inputsMeetRequiredQuality()) {
      onInputLoss(r, t);
      return;
    }
    if (r.state == RuleState.HOLDING || r.state == RuleState.INPUT_LOST) {
      r.state = RuleState.ACTIVE;
      r.holdUntil = null;
      out.event("inputs-restored", r.rule.id(), "inputs meet " + quality(r) + " again", t);
      flags |= Triggers.FORCED;
    }
    // A level-triggered rule (transition, interval) re-derives its claims whenever it starts
    // deciding again. Edge and quality triggers stay event-like: leaving warmup is not an edge.
    if ((flags & Triggers.TRIGGERED) == 0
        && !((flags & Triggers.FORCED) != 0 && r.levelTriggered)) {
      return;
    }
    evaluate(r, t);
  }

  private boolean leaveWarmup(RuleRuntime r, Instant t, boolean fromTimer) {
    String how;
    if (lagTime.lagging()) {
      // What a drain decides (docs/live.md): no rule leaves warmup on samples from a backlog; its
      // deadline is paused meanwhile and is scheduled again when the lag ends.
      return false;
    }
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
          lagTime.whenElapsed(r.warmupFrom, d.cap(), t).ifPresent(due -> timers.rule(due, r.index));
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
    out.event("warmup-left", r.rule.id(), how, t);
    return true;
  }

  /** Ingest lag ended: warmup deadlines are due again, later by the time lag paused them. */
  void rescheduleDeadlines(RuleRuntime[] rules, Instant from) {
    for (RuleRuntime r : rules) {
      if (r.state == RuleState.WARMUP && r.rule.warmup() instanceof Warmup.Deadline d) {
        lagTime
            .whenElapsed(r.warmupFrom, d.cap(), from)
            .ifPresent(due -> timers.rule(due, r.index));
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
        out.event("input-lost", rule.id(), "inputs lost while latched: the claims stay held", t);
      }
      return;
    }
    if (rule.isFailSafe()) {
      r.state = RuleState.INPUT_LOST;
      claims.set(r, r.failSafe, t, "fail-safe on input loss");
    } else if (rule.onInputLoss() instanceof InputLoss.Hold hold) {
      if (r.state == RuleState.ACTIVE) {
        r.state = RuleState.HOLDING;
        r.holdUntil = t.plus(hold.max());
        timers.rule(r.holdUntil, r.index);
      } else if (r.state == RuleState.HOLDING && !t.isBefore(r.holdUntil)) {
        r.state = RuleState.INPUT_LOST;
        r.holdUntil = null;
        claims.set(r, Map.of(), t, "hold_max reached");
        out.event("hold-expired", rule.id(), "held claims released at hold_max " + hold.max(), t);
      }
    } else {
      r.state = RuleState.INPUT_LOST;
      claims.set(r, r.onLoss, t, "input loss");
    }
    if (firstLoss) {
      out.event(
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

  private void evaluate(RuleRuntime r, Instant t) {
    long nanos = EpochNanos.of(t);
    if (!r.recordEvaluation(nanos, windowNanos)) {
      suspend(r, t);
      return;
    }
    step.set(t); // a rule is its own inputs: nothing else is stored to aim an evaluation at it
    if (r.latched) {
      if (!r.rule.holdUntil().orElseThrow().test(r)) {
        return; // latched: the claims stay until the release condition holds
      }
      r.latched = false;
      out.event("latch-released", r.rule.id(), "hold_until holds: the rule decides again", t);
    }
    boolean wasTrue = r.lastCondition.orElse(false);
    boolean condition = r.when.test(r);
    Optional<Boolean> last = condition ? HELD : NOT_HELD;
    if (r.lastCondition != last) {
      r.lastCondition = last; // stored only when it changes: no card dirtied by the same answer
    }
    r.matched = condition ? r.when.matched(r) : 0;
    if (!condition) {
      claims.set(r, Map.of(), t, "condition false");
      return;
    }
    if (r.hasHoldUntil) {
      r.latched = true;
      out.event("latch-set", r.rule.id(), "claims held until its hold_until condition holds", t);
    }
    claims.set(r, r.whenTrue, t, "condition true");
    claims.refreshExpiry(r, t);
    if (r.hasActions) {
      actions.fire(r, t, wasTrue);
    }
  }

  /** More evaluations than the limit allows: the rule lets go until an operator resumes it. */
  private void suspend(RuleRuntime r, Instant t) {
    r.state = RuleState.SUSPENDED;
    out.event(
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
      timers.rule(r.holdUntil, r.index);
    } else {
      claims.set(r, r.onLoss, t, "suspended");
    }
  }

  /** An operator resumes a suspended rule: it decides again at once, its count afresh. */
  void resume(RuleRuntime r, Instant t) {
    if (r.state != RuleState.SUSPENDED) {
      return;
    }
    r.state = RuleState.ACTIVE;
    r.holdUntil = null;
    r.resetEvaluations();
    out.event(ControlEvent.RULE_RESUMED, r.rule.id(), "resumed by an operator", t);
    out.selfPoints.add(new SelfPoint("rule." + r.rule.id() + ".suspended", Value.FALSE, t));
    triggers.touch(r.index, Triggers.ACTIVATION);
  }

  /** A latch saved before a restart: the rule asserts its claims until its hold_until holds. */
  void restoreLatch(RuleRuntime r, Instant t) {
    if (r.rule.holdUntil().isPresent() && r.state != RuleState.DISABLED) {
      r.latched = true;
      claims.set(r, r.whenTrue, t, "latch restored");
    }
  }

  private static Map<String, Value> ruleClaims(Rule rule) {
    Map<String, Value> desired = new LinkedHashMap<>();
    for (ClaimSpec c : rule.claims()) {
      desired.put(c.pointId(), c.value());
    }
    return desired;
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
}
