package io.sentinel.engine;

import io.sentinel.arbitration.Arbiter;
import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.Rule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The claim book: what each rule holds, the diff that lets only changes leave a rule, expires_in,
 * and arbitration of the points whose claims changed (the decisions that leave the engine).
 */
final class ClaimBook {
  private final Arbiter arbiter;

  private final Map<String, ClaimSlot> slots = new HashMap<>();

  /** The points whose claims changed since arbitration last settled, in the order they did. */
  private final List<ClaimSlot> changedSlots = new ArrayList<>();

  private final FlapLimit flaps;
  private final Timers timers;
  private final PassOutputs out;

  ClaimBook(Arbiter arbiter, FlapLimit flaps, Timers timers, PassOutputs out) {
    this.arbiter = arbiter;
    this.flaps = flaps;
    this.timers = timers;
    this.out = out;
  }

  /** The claim diff: only what changed leaves the rule. */
  void set(RuleRuntime r, Map<String, Value> desired, Instant t, String reason) {
    if (desired == r.heldAs || desired.isEmpty() && !r.holds || desired.equals(r.held)) {
      // The common case of a re-evaluation with the same answer: nothing leaves the rule, but its
      // keys may have moved on (seed 001: "then freshest input"). heldAs is the map the held
      // claims were last made equal to, so that the same answer is told without comparing maps
      // (stored only when it moves: a reference stored into the rule's record dirties a card).
      if (r.heldAs != desired) {
        r.heldAs = desired;
      }
      rekey(r);
      return;
    }
    rekey(r);
    if (r.soleClaimPoint != null && setSole(r, desired, t, reason)) {
      return;
    }
    Rule rule = r.rule;
    if (!desired.keySet().containsAll(r.held.keySet())) {
      for (String point : List.copyOf(r.held.keySet())) {
        if (!desired.containsKey(point)) {
          r.letGo(point);
          r.expiry.remove(point);
          ClaimSlot slot = slotOf(r, point);
          Arbiter.Table table = slot.existing();
          if (table != null) {
            arbiter.release(table, rule.id());
          }
          changed(
              slot, new ClaimChange(rule.id(), point, rule.band(), Optional.empty(), t, reason));
        }
      }
    }
    for (Map.Entry<String, Value> e : desired.entrySet()) {
      Value before = r.held.get(e.getKey());
      if (e.getValue().equals(before)) {
        continue;
      }
      r.hold(e.getKey(), e.getValue());
      ClaimSlot slot = slotOf(r, e.getKey());
      arbiter.assertClaim(slot.table(), claim(r, e.getKey(), e.getValue()));
      changed(
          slot,
          new ClaimChange(
              rule.id(), e.getKey(), rule.band(), Optional.of(e.getValue()), t, reason));
    }
    r.heldAs = desired;
    r.holds = !r.held.isEmpty();
  }

  /**
   * {@link #set} for a rule of one claim (most rules), whose wanted and held claims are each that
   * claim or none: the same release or assert, without walking or copying either map. False, having
   * done nothing, when the maps name another point.
   */
  private boolean setSole(RuleRuntime r, Map<String, Value> desired, Instant t, String reason) {
    String point = r.soleClaimPoint;
    // The rule's own answer (the claim as written) or none: known to name only its point.
    boolean sole = desired == r.whenTrue || desired.isEmpty();
    if (!sole && (desired.size() > 1 || !desired.containsKey(point))) {
      return false;
    }
    Value before = r.soleHeld;
    if (before == null && r.holds) {
      return false;
    }
    Rule rule = r.rule;
    Value want = desired == r.whenTrue ? r.soleWant : desired.isEmpty() ? null : desired.get(point);
    ClaimSlot slot = slotOf(r, point);
    if (want == null) {
      if (before != null) {
        r.letGo(point);
        if (r.expires) {
          r.expiry.remove(point); // else empty for good: not even read
        }
        Arbiter.Table table = slot.existing();
        if (table != null) {
          arbiter.release(table, rule.id());
        }
        changed(slot, new ClaimChange(rule.id(), point, rule.band(), Optional.empty(), t, reason));
      }
    } else if (!want.equals(before)) {
      r.hold(point, want);
      arbiter.assertClaim(slot.table(), claim(r, point, want));
      changed(slot, new ClaimChange(rule.id(), point, rule.band(), Optional.of(want), t, reason));
    }
    r.heldAs = desired;
    r.holds = !r.held.isEmpty();
    return true;
  }

  /**
   * Arbitration's freshness and matched count are the rule's as of its latest evaluation, not as of
   * when it first claimed: a rule whose input changed while its answer stayed the same is the
   * fresher. The claims it holds are re-keyed without a claim change (nothing reaches the command
   * plane or the flap limit unless the winner changes); their points are arbitrated again. The keys
   * move in place in the points' tables (a held claim is always in its table, with the held value
   * and the rule's band and priority; were it not, it is asserted as before).
   */
  private void rekey(RuleRuntime r) {
    if (!r.claimCurrent() || !r.holds) {
      return;
    }
    if (r.soleClaimPoint != null) {
      // A rule of one claim (most rules) holds it on that claim's point: no walk of the held map.
      rekeyOn(r, r.soleClaimPoint);
      return;
    }
    for (String point : r.held.keySet()) {
      rekeyOn(r, point);
    }
  }

  private void rekeyOn(RuleRuntime r, String point) {
    ClaimSlot slot = slotOf(r, point);
    Arbiter.Table table = slot.table();
    if (!table.rekey(r.ruleId, r.claimedSecond, r.claimedNano, r.claimedMatched)) {
      arbiter.assertClaim(table, claim(r, point, r.held.get(point)));
    } else if (slot.last != null && table.size() == 1 && table.version() == slot.decidedVersion) {
      return; // settle would pass it over (its first check): a sole claim decided, only re-keyed
    }
    markChanged(slot);
  }

  /** The slot of a point the rule claims: the rule keeps it, so it is looked up once. */
  private ClaimSlot slotOf(RuleRuntime r, String point) {
    if (point == r.soleClaimPoint) {
      ClaimSlot s = r.soleSlot;
      if (s == null) {
        s = slot(point);
        r.soleSlot = s;
      }
      return s;
    }
    String[] points = r.claimPoints;
    for (int k = 0; k < points.length; k++) {
      if (points[k] == point) {
        ClaimSlot s = r.claimSlots[k];
        if (s == null) {
          s = slot(point);
          r.claimSlots[k] = s;
        }
        return s;
      }
    }
    return slot(point);
  }

  private ClaimSlot slot(String pointId) {
    ClaimSlot s = slots.get(pointId);
    if (s == null) {
      s = new ClaimSlot(pointId, arbiter);
      slots.put(pointId, s);
    }
    return s;
  }

  private FlapLimit.PointFlap flapOf(ClaimSlot slot) {
    if (slot.flap == null) {
      slot.flap = flaps.of(slot.pointId);
    }
    return slot.flap;
  }

  /** The point's claims changed: it is arbitrated at the next settle. */
  void markChanged(String pointId) {
    markChanged(slot(pointId));
  }

  private void markChanged(ClaimSlot slot) {
    if (!slot.changed) {
      slot.changed = true;
      changedSlots.add(slot);
    }
  }

  /** The claim of {@code r} on {@code point}, with the keys it is arbitrated by. */
  private static Claim claim(RuleRuntime r, String point, Value value) {
    Rule rule = r.rule;
    return new Claim(
        rule.id(),
        point,
        rule.band(),
        rule.priority(),
        value,
        r.claimedFreshness(),
        r.claimedMatched);
  }

  /** A claim still wanted is refreshed: expires_in bounds a rule that stopped evaluating. */
  void refreshExpiry(RuleRuntime r, Instant t) {
    if (!r.expires) {
      return;
    }
    for (ClaimSpec c : r.rule.claims()) {
      if (c.expiresIn().isPresent()) {
        r.expiry.put(c.pointId(), t.plus(c.expiresIn().get()));
      }
    }
    scheduleExpiry(r);
  }

  /** Releases the claims of {@code r} whose expires_in has run out by {@code t}. */
  void expire(RuleRuntime r, Instant t) {
    if (!r.expires) {
      return; // no claim of the rule has expires_in: nothing ever expires nor is scheduled
    }
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
        set(r, desired, t, "expires_in reached");
        out.event(
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
    Instant earliest = Collections.min(r.expiry.values());
    if (r.expiryTimer == null || earliest.isBefore(r.expiryTimer)) {
      r.expiryTimer = earliest;
      timers.rule(earliest, r.index);
    }
  }

  /** Asserts a claim that is not a rule's own (an override, one kept across a revision). */
  void assertClaim(Claim claim) {
    arbiter.assertClaim(claim);
  }

  void release(String ruleId, String pointId) {
    arbiter.release(ruleId, pointId);
  }

  /** A claim changed: it leaves the engine, counts towards the flap limit, and asks arbitration. */
  void changed(ClaimChange change) {
    changed(slot(change.pointId()), change);
  }

  private void changed(ClaimSlot slot, ClaimChange change) {
    out.claimChanges.add(change);
    markChanged(slot);
    flaps.count(flapOf(slot), change);
  }

  /** Arbitrates the points whose claims changed; a new outcome leaves as a decision. */
  void settle(Instant t) {
    for (int k = 0; k < changedSlots.size(); k++) {
      ClaimSlot slot = changedSlots.get(k);
      slot.changed = false;
      Decision last = slot.last;
      Arbiter.Table table = slot.existing();
      if (last != null
          && table != null
          && table.size() == 1
          && table.version() == slot.decidedVersion) {
        continue; // nothing asserted or released since its sole claim was decided: re-keyed only
      }
      if (last != null
          && table != null
          && Arbiter.stillSole(table, slot.lastRule, slot.lastValue)) {
        continue; // the same sole claim as last decided: nothing new to build or send
      }
      Decision d = table == null ? arbiter.decide(slot.pointId) : arbiter.decide(table);
      if (last != null && slot.sameOutcome(d)) {
        continue;
      }
      boolean interlock = d.winner().filter(c -> c.band() == Band.INTERLOCK).isPresent();
      if (!interlock && flapOf(slot).frozen) {
        continue;
      }
      if (last == null && d.winner().isEmpty()) {
        continue; // nothing was ever decided for this point: nothing to release
      }
      slot.decided(d);
      slot.decidedVersion = table == null ? -1 : table.version();
      out.decisions.add(d);
    }
    changedSlots.clear();
  }

  /** The current arbitration outcome of a point. */
  Decision decide(String pointId) {
    return arbiter.decide(pointId);
  }

  /** The last decision that left arbitration for a point, if any. */
  Optional<Decision> output(String pointId) {
    ClaimSlot slot = slots.get(pointId);
    return Optional.ofNullable(slot == null ? null : slot.last);
  }

  List<String> claimedPoints() {
    return arbiter.claimedPoints();
  }

  List<Claim> claims() {
    return arbiter.claims();
  }

  /** Keeps what was last decided across a revision (the claims themselves are carried apart). */
  void takeOver(ClaimBook previous) {
    previous.slots.forEach(
        (pointId, before) -> {
          if (before.last != null) {
            slot(pointId).decided(before.last);
          }
        });
  }
}
