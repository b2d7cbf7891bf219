package io.sentinel.arbitration;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ArbiterTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private final Arbiter arbiter = new Arbiter(p -> Optional.of(Value.FALSE));

  private static Claim claim(
      String rule, Band band, int priority, Value v, Instant fresh, int matched) {
    return new Claim(rule, "p", band, priority, v, fresh, matched);
  }

  @Test
  void noClaim_fallsToTheReleaseValue() {
    Decision d = arbiter.decide("p");
    assertThat(d.winner()).isEmpty();
    assertThat(d.value()).contains(Value.FALSE);
    assertThat(d.decidingKey()).isEqualTo("released");
  }

  @Test
  void decidingKey_isTheFirstKeyThatSeparatesTheFirstTwo() {
    arbiter.assertClaim(claim("z", Band.AUTOMATION, 0, Value.TRUE, T, 0));
    assertThat(arbiter.decide("p").decidingKey()).isEqualTo("sole");

    arbiter.assertClaim(claim("y", Band.AUTOMATION, 0, Value.FALSE, T, 0));
    assertThat(arbiter.decide("p"))
        .satisfies(
            d -> {
              assertThat(d.winner().orElseThrow().ruleId()).isEqualTo("y");
              assertThat(d.decidingKey()).isEqualTo("rule_id");
            });

    arbiter.assertClaim(claim("x", Band.AUTOMATION, 0, Value.TRUE, T, 2));
    assertThat(arbiter.decide("p").decidingKey()).isEqualTo("matched_conditions");

    arbiter.assertClaim(claim("w", Band.AUTOMATION, 0, Value.FALSE, T.plusSeconds(1), 0));
    assertThat(arbiter.decide("p").decidingKey()).isEqualTo("freshness");

    arbiter.assertClaim(claim("v", Band.AUTOMATION, 5, Value.TRUE, T, 0));
    assertThat(arbiter.decide("p").decidingKey()).isEqualTo("priority");

    arbiter.assertClaim(claim("u", Band.INTERLOCK, 0, Value.FALSE, T, 0));
    Decision d = arbiter.decide("p");
    assertThat(d.winner().orElseThrow().ruleId()).isEqualTo("u");
    assertThat(d.decidingKey()).isEqualTo("band");
    assertThat(d.contenders())
        .extracting(Claim::ruleId)
        .containsExactly("u", "v", "w", "x", "y", "z");
  }

  @Test
  void release_letsTheNextBandThrough() {
    arbiter.assertClaim(claim("safety", Band.SAFETY, 0, Value.FALSE, T, 0));
    arbiter.assertClaim(claim("comfort", Band.AMBIENT, 0, Value.TRUE, T, 0));
    arbiter.release("safety", "p");
    assertThat(arbiter.decide("p").value()).contains(Value.TRUE);
  }

  @Test
  void rekey_movesFreshnessAndMatchedInPlace_asAssertingTheClaimAgainWould() {
    Arbiter.Table table = arbiter.table("p");
    arbiter.assertClaim(table, claim("a", Band.AUTOMATION, 0, Value.TRUE, T, 0));
    arbiter.assertClaim(table, claim("b", Band.AUTOMATION, 0, Value.FALSE, T.plusSeconds(1), 0));
    assertThat(arbiter.decide(table).winner().orElseThrow().ruleId()).isEqualTo("b");

    Instant later = T.plusSeconds(2).plusNanos(7);
    assertThat(table.rekey("a", later.getEpochSecond(), later.getNano(), 3)).isTrue();
    Decision d = arbiter.decide(table);
    assertThat(d.winner()).contains(claim("a", Band.AUTOMATION, 0, Value.TRUE, later, 3));
    assertThat(d.decidingKey()).isEqualTo("freshness");
    assertThat(d.contenders()).extracting(Claim::ruleId).containsExactly("a", "b");
    assertThat(arbiter.claims())
        .containsExactly(
            claim("a", Band.AUTOMATION, 0, Value.TRUE, later, 3),
            claim("b", Band.AUTOMATION, 0, Value.FALSE, T.plusSeconds(1), 0));

    assertThat(table.rekey("c", later.getEpochSecond(), later.getNano(), 0)).isFalse();
    assertThat(table.size()).isEqualTo(2);
    arbiter.release(table, "a");
    assertThat(arbiter.decide(table).winner())
        .contains(claim("b", Band.AUTOMATION, 0, Value.FALSE, T.plusSeconds(1), 0));
  }
}
