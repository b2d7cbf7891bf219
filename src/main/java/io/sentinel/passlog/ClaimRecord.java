package io.sentinel.passlog;

import io.sentinel.engine.ClaimChange;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A claim change as the log keeps it ({@code claim_changes}): a rule (or an operator override)
 * asserted a value on a point, or released its claim. Replay diffs these as well as the commands
 * (seed 000: "diff the claims against what actually happened"); {@code reason} is shown, not
 * compared.
 */
public record ClaimRecord(
    Instant at, String ruleId, String pointId, Band band, Optional<Value> value, String reason)
    implements Compared<ClaimRecord> {

  public static List<ClaimRecord> of(PassResult result) {
    return result.claimChanges().stream().map(ClaimRecord::of).toList();
  }

  public static ClaimRecord of(ClaimChange c) {
    return new ClaimRecord(c.at(), c.ruleId(), c.pointId(), c.band(), c.value(), c.reason());
  }

  @Override
  public boolean sameAs(ClaimRecord other) {
    return ruleId.equals(other.ruleId)
        && pointId.equals(other.pointId)
        && band == other.band
        && value.equals(other.value);
  }

  /** {@code claim boiler.ch1.pump := true by pump-run-on (automation): condition true}. */
  @Override
  public String describe() {
    return "claim "
        + pointId
        + value.map(v -> " := " + v).orElse(" released")
        + " by "
        + ruleId
        + " ("
        + band.wireName()
        + ")"
        + (reason.isEmpty() ? "" : ": " + reason);
  }
}
