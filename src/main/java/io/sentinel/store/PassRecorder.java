package io.sentinel.store;

import io.sentinel.audit.AuditEntry;
import io.sentinel.audit.AuditTrail;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.PassResult;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.rule.RuleSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The engine thread's side of the log, called right after each pass: it builds the pass's audit
 * entries (they read the engine's state, so they are made here, before the next pass) and offers
 * everything to the journal without waiting. Every {@code snapshotEvery} of engine time, and at
 * once whenever a DSL latch is set or released or an operator override is set or ends, it also
 * offers the derived points' state, the latches and the overrides in force, for the next restart.
 */
public final class PassRecorder {
  private final Journal journal;
  private Engine engine;
  private AuditTrail trail;
  private long revision;
  private boolean hasDerived;
  private boolean hasLatches;
  private Set<String> lastLatches = Set.of();
  private Map<String, OperatorOverride> lastOverrides = Map.of();
  private final Duration snapshotEvery;
  private Instant lastSnapshot = Instant.MIN;
  private Tenure tenure;

  public PassRecorder(
      Journal journal, Engine engine, RuleSet ruleSet, long revision, Duration snapshotEvery) {
    this.journal = journal;
    this.snapshotEvery = snapshotEvery;
    follow(engine, ruleSet, revision);
  }

  private void follow(Engine engine, RuleSet ruleSet, long revision) {
    this.engine = engine;
    this.revision = revision;
    this.hasDerived = !ruleSet.derived().ordered().isEmpty();
    this.hasLatches = ruleSet.rules().stream().anyMatch(r -> r.holdUntil().isPresent());
    this.trail =
        new AuditTrail(ruleSet, revision, id -> engine.points().state(id), engine::decision);
  }

  /**
   * A revision took over (on the engine's context, between two passes): what the activation changed
   * at once is logged under the new revision after a {@code revision} audit entry, and the new
   * state is snapshotted at once, so that a restart names the revision it restores.
   */
  public long activated(
      Instant now,
      Engine.Activation activation,
      long revision,
      java.util.Map<String, Object> detail) {
    follow(activation.engine(), activation.engine().ruleSet(), revision);
    List<AuditEntry> audit = new java.util.ArrayList<>();
    audit.add(trail.activation(now, detail));
    audit.addAll(trail.entries(now, activation.result()));
    long seq = journal.offer(new PassRecord(now, List.of(), activation.result()), audit);
    snapshot(now);
    return seq;
  }

  /**
   * Offers one pass; returns the last sequence number it took, or -1 when the journal refused it
   * (the journal has then raised its overflow alarm).
   */
  public long record(Instant now, List<Observation> observations, PassResult result) {
    List<AuditEntry> audit =
        result.claimChanges().isEmpty()
                && result.actions().isEmpty()
                && result.decisions().isEmpty()
                && result.events().stream()
                    .noneMatch(e -> e.kind().equals(ControlEvent.RULE_RESUMED))
            ? List.of()
            : trail.entries(now, result);
    if (tenure != null) {
      List<AuditEntry> first = new java.util.ArrayList<>();
      first.add(trail.tenure(now, tenure.holder(), tenure.epoch(), tenure.detail()));
      first.addAll(audit);
      audit = first;
      tenure = null;
    }
    long seq = journal.offer(new PassRecord(now, observations, result), audit);
    // A latch is set or released only in a pass that changes claims; an override that was not
    // restored after a restart may have no claim to change.
    boolean heldChanged =
        hasLatches && !result.claimChanges().isEmpty() && !engine.latchedRules().equals(lastLatches)
            || (engine.hasOverrides() || !lastOverrides.isEmpty())
                && !engine.overrides().equals(lastOverrides);
    if (heldChanged
        || ((hasDerived || hasLatches) && !now.isBefore(lastSnapshot.plus(snapshotEvery)))) {
      snapshot(now);
    }
    return seq;
  }

  /**
   * With a standby (docs/standby.md): the first pass's audit entries start with a {@code core}
   * entry naming {@code holder} and {@code epoch}, so the chain shows which core issued what.
   */
  public void tenure(String holder, long epoch, String commandIds) {
    tenure =
        new Tenure(
            holder,
            epoch,
            Map.<String, Object>of("holder", holder, "epoch", epoch, "command_ids", commandIds));
  }

  private record Tenure(String holder, long epoch, Map<String, Object> detail) {}

  /**
   * The overrides the store held at start (restored or not): the first snapshot after a start that
   * changed them says so, so that one which ended while the gateway was down is not offered again
   * at the next start.
   */
  public void restored(java.util.Collection<OperatorOverride> kept) {
    Map<String, OperatorOverride> byPoint = new java.util.LinkedHashMap<>();
    kept.forEach(o -> byPoint.put(o.pointId(), o));
    lastOverrides = Map.copyOf(byPoint);
  }

  /** Offers the derived state, the latches and the overrides now (also at a clean stop). */
  public void snapshot(Instant now) {
    if (hasDerived || hasLatches || engine.hasOverrides() || !lastOverrides.isEmpty()) {
      lastSnapshot = now;
      lastLatches = engine.latchedRules();
      lastOverrides = engine.overrides();
      journal.offerDerivedSnapshot(
          now, revision, engine.derivedSnapshot(), lastLatches, lastOverrides.values());
    }
  }
}
