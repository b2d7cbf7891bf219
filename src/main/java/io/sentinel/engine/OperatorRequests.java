package io.sentinel.engine;

import io.sentinel.arbitration.Claim;
import io.sentinel.point.PointTable;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * An operator's requests (resume a suspended rule, override a point, clear an override), taken at
 * the first instant of the next pass, and the overrides in force: their claims, ends, and what
 * becomes of them across a revision or a restart.
 */
final class OperatorRequests {
  private final PointTable points;
  private final ClaimBook claims;
  private final Timers timers;
  private final PassOutputs out;

  private final Set<String> pendingResumes = new LinkedHashSet<>();

  /** Overrides asked for (an empty value clears the point's) and those in force. */
  private final List<Map.Entry<String, Optional<OperatorOverride>>> pendingOverrides =
      new ArrayList<>();

  private final Map<String, OperatorOverride> overrides = new LinkedHashMap<>();

  OperatorRequests(PointTable points, ClaimBook claims, Timers timers, PassOutputs out) {
    this.points = points;
    this.claims = claims;
    this.timers = timers;
    this.out = out;
  }

  void resume(String ruleId) {
    pendingResumes.add(ruleId);
  }

  void override(OperatorOverride o, Instant clock) {
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

  void clear(String pointId) {
    pendingOverrides.add(Map.entry(pointId, Optional.empty()));
  }

  boolean pending() {
    return !pendingResumes.isEmpty() || !pendingOverrides.isEmpty();
  }

  Map<String, OperatorOverride> inForce() {
    return Map.copyOf(overrides);
  }

  /** The overrides in force, in the order they took hold. */
  java.util.Collection<OperatorOverride> inForceInOrder() {
    return overrides.values();
  }

  boolean any() {
    return !overrides.isEmpty();
  }

  /** Resumes and overrides asked for since the last pass, at the first instant of this one. */
  void apply(Instant t, Function<String, RuleRuntime> rules, RulePolicy policy) {
    for (String id : pendingResumes) {
      Optional.ofNullable(rules.apply(id)).ifPresent(r -> policy.resume(r, t));
    }
    pendingResumes.clear();
    for (Map.Entry<String, Optional<OperatorOverride>> request : pendingOverrides) {
      if (request.getValue().isEmpty()) {
        end(request.getKey(), t, true);
        continue;
      }
      OperatorOverride o = request.getValue().get();
      if (!o.until().isAfter(t)) {
        continue; // over before it began (the pass came later than asked)
      }
      put(o, t, "override by ", "override-set");
    }
    pendingOverrides.clear();
  }

  /** An override takes hold at {@code t}: its claim, its audit reason, its event and its end. */
  private void put(OperatorOverride o, Instant t, String reasonPrefix, String eventKind) {
    overrides.put(o.pointId(), o);
    claims.assertClaim(
        new Claim(
            OperatorOverride.RULE_ID,
            o.pointId(),
            Band.OPERATOR,
            OperatorOverride.PRIORITY,
            o.value(),
            t,
            0));
    claims.changed(
        new ClaimChange(
            OperatorOverride.RULE_ID,
            o.pointId(),
            Band.OPERATOR,
            Optional.of(o.value()),
            t,
            reasonPrefix + o.by() + " until " + o.until() + ": " + o.reason()));
    out.event(
        eventKind,
        o.pointId(),
        o.pointId() + " = " + o.value() + " by " + o.by() + " until " + o.until(),
        t);
    timers.overrideEnd(o.until(), o.pointId());
  }

  /**
   * Ends a point's override when it is cleared, or at its end (a replaced one's timer is stale).
   */
  void end(String pointId, Instant t, boolean cleared) {
    OperatorOverride o = overrides.get(pointId);
    if (o == null || (!cleared && t.isBefore(o.until()))) {
      return;
    }
    overrides.remove(pointId);
    claims.release(OperatorOverride.RULE_ID, pointId);
    String reason = cleared ? "override cleared" : "override expired";
    claims.changed(
        new ClaimChange(
            OperatorOverride.RULE_ID, pointId, Band.OPERATOR, Optional.empty(), t, reason));
    out.event(
        cleared ? "override-cleared" : "override-expired",
        pointId,
        reason + " (set by " + o.by() + "): the point follows its rules again",
        t);
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
  void keep(OperatorRequests previous, Claim claim, Instant at) {
    OperatorOverride o = previous.overrides.get(claim.pointId());
    int p = points.indexOf(o.pointId());
    Optional<OperatorOverride.Rejection> misfit = misfit(o, at);
    if (misfit.isEmpty()) {
      overrides.put(o.pointId(), o);
      claims.assertClaim(claim);
      return;
    }
    String why = "override ended by a revision: " + misfit.get().message();
    if (p >= 0) {
      claims.changed(
          new ClaimChange(
              OperatorOverride.RULE_ID, o.pointId(), Band.OPERATOR, Optional.empty(), at, why));
    }
    out.event("override-dropped", o.pointId(), why + " (set by " + o.by() + ")", at);
  }

  /** Resumes still asked for, of the rules the next rule set keeps. */
  void keepResumes(OperatorRequests previous, Set<String> ruleIds) {
    previous.pendingResumes.stream().filter(ruleIds::contains).forEach(pendingResumes::add);
  }

  /**
   * Takes back the overrides in force before a restart (see {@link Engine#restoreOverrides}).
   *
   * @return what was not restored, one line each
   */
  List<String> restore(Collection<OperatorOverride> kept, Instant clock) {
    List<String> notes = new ArrayList<>();
    for (OperatorOverride o : kept) {
      int p = points.indexOf(o.pointId());
      Optional<OperatorOverride.Rejection> misfit = misfit(o, clock);
      if (misfit.isEmpty()) {
        put(o, clock, "override restored after a restart: by ", "override-restored");
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
      out.event(
          expired ? "override-expired" : "override-dropped",
          o.pointId(),
          why + " (set by " + o.by() + "): the point follows its rules",
          clock);
    }
    return notes;
  }
}
