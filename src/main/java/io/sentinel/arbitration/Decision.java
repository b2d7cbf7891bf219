package io.sentinel.arbitration;

import io.sentinel.point.Value;
import java.util.List;
import java.util.Optional;

/**
 * The outcome for one point: the winning claim, or none (the point falls to its release value, if
 * it has one), every contender, and the key that decided between the first two.
 */
public record Decision(
    String pointId,
    Optional<Claim> winner,
    Optional<Value> value,
    List<Claim> contenders,
    String decidingKey) {
  public Decision {
    contenders = List.copyOf(contenders);
  }

  /** Whether two decisions would send the same thing to the point. */
  public boolean sameOutcome(Decision other) {
    return value.equals(other.value)
        && (winner.isEmpty()
            ? other.winner.isEmpty()
            : other.winner.isPresent()
                && winner.get().ruleId().equals(other.winner.get().ruleId()));
  }
}
