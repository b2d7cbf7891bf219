package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.audit.AuditEntry;
import io.sentinel.audit.AuditTrail;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An operator's requests on the engine (the HTTP API's mutations): an override in the operator band
 * with an end, and resuming a suspended rule. Both take effect at the next pass, between two
 * passes, and come out as claim changes, decisions and control events like anything else the engine
 * does.
 */
class OperatorRequestsTest {
  private static final Path SITE = Path.of("src/test/resources/sites/semantics");
  private static final RuleSet RULES = Site.load(SITE).site().orElseThrow().ruleSet();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void anOverrideBeatsAutomationUntilItsEnd_thenThePointFollowsItsRulesAgain() {
    Engine engine = warm();
    engine.pass(T0, List.of(live("room.co2", 1500, T0)), false);
    assertThat(engine.decision("room.vent").value()).contains(Value.TRUE);

    Instant t1 = T0.plusSeconds(1);
    engine.override(override("room.vent", Value.FALSE, t1.plusSeconds(60)));
    PassResult set = engine.pass(t1, List.of(), false);
    Decision d = engine.decision("room.vent");
    assertThat(d.winner().map(Claim::ruleId)).contains(OperatorOverride.RULE_ID);
    assertThat(d.winner().map(Claim::band)).contains(Band.OPERATOR);
    assertThat(d.decidingKey()).isEqualTo("band");
    assertThat(set.decisions()).extracting(Decision::pointId).containsExactly("room.vent");
    assertThat(set.events()).extracting(ControlEvent::kind).containsExactly("override-set");
    assertThat(engine.overrides()).containsKey("room.vent");
    assertThat(engine.nextDue()).contains(t1.plusSeconds(60));

    PassResult ended = engine.pass(t1.plusSeconds(60), List.of(), false);
    assertThat(ended.events()).extracting(ControlEvent::kind).containsExactly("override-expired");
    assertThat(ended.decisions())
        .singleElement()
        .satisfies(e -> assertThat(e.winner().map(Claim::ruleId)).contains("vent-on-co2"));
    assertThat(engine.overrides()).isEmpty();
  }

  @Test
  void aClearedOverrideEndsAtTheNextPass_andTheAuditTrailNamesBothEnds() {
    Engine engine = warm();
    AuditTrail trail = new AuditTrail(RULES, 7, engine.points()::state, engine::decision);
    engine.override(override("dhw.setpoint", Value.of(60), T0.plusSeconds(3600)));
    PassResult set = engine.pass(T0, List.of(), false);
    assertThat(engine.decision("dhw.setpoint").value()).contains(Value.of(60));
    List<AuditEntry> audit = new ArrayList<>(trail.entries(T0, set));

    Instant t1 = T0.plusSeconds(5);
    engine.clearOverride("dhw.setpoint");
    PassResult cleared = engine.pass(t1, List.of(), false);
    assertThat(cleared.events()).extracting(ControlEvent::kind).containsExactly("override-cleared");
    assertThat(engine.output("dhw.setpoint").orElseThrow().value()).contains(Value.of(10));
    audit.addAll(trail.entries(t1, cleared));

    audit.removeIf(e -> !e.ruleId().equals(OperatorOverride.RULE_ID));
    assertThat(audit)
        .extracting(AuditEntry::kind, AuditEntry::ruleId, AuditEntry::band)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("override", OperatorOverride.RULE_ID, "operator"),
            org.assertj.core.groups.Tuple.tuple("override", OperatorOverride.RULE_ID, "operator"));
    assertThat(audit.get(0).reason()).contains("by alice", "test");
    assertThat(audit.get(0).detail()).containsEntry("claimed", 60L);
    assertThat(audit.get(1).reason()).isEqualTo("override cleared");
    assertThat(audit.get(1).detail()).containsEntry("ended", true);
  }

  @Test
  void anInterlockStillBeatsAnOverride() {
    Engine engine = warm();
    engine.override(override("dhw.setpoint", Value.of(70), T0.plusSeconds(3600)));
    engine.pass(T0, List.of(live("dhw.scald-risk", true, T0)), false);
    Decision d = engine.decision("dhw.setpoint");
    assertThat(d.winner().map(Claim::ruleId)).contains("dhw-scald-guard");
    assertThat(d.contenders()).extracting(Claim::ruleId).contains(OperatorOverride.RULE_ID);
  }

  @Test
  void aBadOverrideIsRefusedNamingTheField_andNothingIsQueued() {
    Engine engine = warm();
    Instant later = T0.plusSeconds(60);
    assertThatThrownBy(() -> engine.override(override("no.such", Value.TRUE, later)))
        .hasMessageStartingWith("point: no point no.such");
    assertThatThrownBy(() -> engine.override(override("room.co2", Value.of(5), later)))
        .hasMessageStartingWith("point: point room.co2 is an input");
    assertThatThrownBy(() -> engine.override(override("room.vent", Value.of(5), later)))
        .hasMessage("value: point room.vent is a bool, not 5");
    assertThatThrownBy(() -> engine.override(override("dhw.setpoint", Value.of(99), later)))
        .hasMessageStartingWith("value: 99 is outside the range [10.0, 75.0]");
    assertThatThrownBy(() -> engine.override(override("room.vent", Value.TRUE, T0)))
        .hasMessageStartingWith("expires_in: ");
    assertThat(engine.pass(T0, List.of(), false).claimChanges())
        .noneMatch(c -> c.ruleId().equals(OperatorOverride.RULE_ID));
    assertThat(engine.overrides()).isEmpty();
  }

  @Test
  void aResumedRuleDecidesAgainInTheNextPass_evenWithoutNewSamples() {
    Engine engine = warm();
    engine.pass(T0, List.of(live("room.co2", 600, T0)), false);
    List<Sample> toggle = new ArrayList<>();
    for (int k = 0; k < 700; k++) {
      toggle.add(live("room.co2", k % 2 == 0 ? 1800 : 1900, T0.plusSeconds(1).plusMillis(10L * k)));
    }
    Instant t1 = T0.plusSeconds(8);
    engine.pass(t1, toggle, false);
    assertThat(engine.status("vent-on-co2").orElseThrow().state()).isEqualTo(RuleState.SUSPENDED);

    Instant t2 = t1.plus(Duration.ofSeconds(1));
    engine.resume("vent-on-co2");
    PassResult resumed = engine.pass(t2, List.of(), false);
    AuditTrail trail = new AuditTrail(RULES, 7, engine.points()::state, engine::decision);
    assertThat(trail.entries(t2, resumed))
        .first()
        .satisfies(
            e -> {
              assertThat(e.kind()).isEqualTo("resume");
              assertThat(e.ruleId()).isEqualTo("vent-on-co2");
              assertThat(e.reason()).isEqualTo("resumed by an operator");
            });
    assertThat(resumed.events()).extracting(ControlEvent::kind).contains("rule-resumed");
    assertThat(resumed.selfPoints())
        .anySatisfy(
            s -> {
              assertThat(s.name()).isEqualTo("rule.vent-on-co2.suspended");
              assertThat(s.value()).isEqualTo(Value.FALSE);
            });
    RuleStatus status = engine.status("vent-on-co2").orElseThrow();
    assertThat(status.state()).isEqualTo(RuleState.ACTIVE);
    assertThat(status.claims()).containsEntry("room.vent", Value.TRUE);
  }

  @Test
  void aRestoredOverrideClaimsFromTheFirstPass_untilItsOriginalEnd() {
    Instant until = T0.plus(Duration.ofHours(2));
    Engine cold = new Engine(RULES, T0, StartMode.COLD, EngineLimits.DEFAULT);
    assertThat(cold.restoreOverrides(List.of(override("room.vent", Value.FALSE, until)))).isEmpty();
    AuditTrail trail = new AuditTrail(RULES, 7, cold.points()::state, cold::decision);

    // A CO2 alarm that would run the fan: the operator's hold wins from the very first pass.
    PassResult first = cold.pass(T0, List.of(live("room.co2", 1500, T0)), false);
    assertThat(first.events()).extracting(ControlEvent::kind).contains("override-restored");
    assertThat(first.decisions())
        .filteredOn(d -> d.pointId().equals("room.vent"))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.winner().map(Claim::ruleId)).contains(OperatorOverride.RULE_ID);
              assertThat(d.value()).contains(Value.FALSE);
            });
    assertThat(trail.entries(T0, first))
        .filteredOn(e -> e.kind().equals("override"))
        .singleElement()
        .satisfies(e -> assertThat(e.reason()).startsWith("override restored after a restart"));
    assertThat(cold.overrides()).containsOnlyKeys("room.vent");
    assertThat(cold.nextDue()).isPresent();

    // The end it was given before the restart, not a fresh one.
    cold.pass(until.minusMillis(1), List.of(), false);
    assertThat(cold.overrides()).containsKey("room.vent");
    PassResult ended = cold.pass(until, List.of(), false);
    assertThat(ended.events()).extracting(ControlEvent::kind).contains("override-expired");
    assertThat(cold.overrides()).isEmpty();
  }

  @Test
  void anOverrideThatEndedWhileDown_orNoLongerFits_isNotRestored_andSaysSo() {
    Engine cold = new Engine(RULES, T0, StartMode.COLD, EngineLimits.DEFAULT);
    List<String> notes =
        cold.restoreOverrides(
            List.of(
                override("room.vent", Value.FALSE, T0.minusSeconds(1)),
                override("dhw.setpoint", Value.of(99), T0.plusSeconds(60)),
                override("gone.point", Value.TRUE, T0.plusSeconds(60))));
    assertThat(notes)
        .containsExactly(
            "room.vent: override expired at 2025-12-31T23:59:59Z while the gateway was down: not"
                + " restored",
            "dhw.setpoint: override not restored: 99 is outside the range [10.0, 75.0] of"
                + " dhw.setpoint",
            "gone.point: override not restored: point gone.point is no longer in the registry");
    assertThat(cold.overrides()).isEmpty();
    AuditTrail trail = new AuditTrail(RULES, 7, cold.points()::state, cold::decision);
    PassResult first = cold.pass(T0, List.of(), false);
    assertThat(first.events())
        .filteredOn(e -> e.kind().startsWith("override-"))
        .extracting(ControlEvent::kind, ControlEvent::subject)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("override-expired", "room.vent"),
            org.assertj.core.groups.Tuple.tuple("override-dropped", "dhw.setpoint"),
            org.assertj.core.groups.Tuple.tuple("override-dropped", "gone.point"));
    // The audit log hears of each end whose point is still registered.
    assertThat(trail.entries(T0, first))
        .filteredOn(e -> e.kind().equals("override"))
        .extracting(e -> e.detail().get("ended"), AuditEntry::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                true,
                "override expired at 2025-12-31T23:59:59Z while the gateway was down: not restored"
                    + " (set by alice: test)"),
            org.assertj.core.groups.Tuple.tuple(
                true,
                "override not restored: 99 is outside the range [10.0, 75.0] of dhw.setpoint (set"
                    + " by alice: test)"));
    assertThat(cold.decision("room.vent").winner().map(Claim::ruleId))
        .isNotEqualTo(java.util.Optional.of(OperatorOverride.RULE_ID));
  }

  @Test
  void anOverrideOutlivesARevision_asLongAsItsPointTakesIt() {
    Engine engine = warm();
    engine.override(override("room.vent", Value.FALSE, T0.plusSeconds(600)));
    engine.pass(T0, List.of(live("room.co2", 1500, T0)), false);

    Engine.Activation same = engine.activate(RULES);
    Engine next = same.engine();
    assertThat(same.result().events()).noneMatch(e -> e.kind().startsWith("override-"));
    assertThat(next.overrides()).containsOnlyKeys("room.vent");
    assertThat(next.decision("room.vent").winner().map(Claim::ruleId))
        .contains(OperatorOverride.RULE_ID);
    PassResult ended = next.pass(T0.plusSeconds(600), List.of(), false);
    assertThat(ended.events()).extracting(ControlEvent::kind).contains("override-expired");
    assertThat(next.decision("room.vent").winner().map(Claim::ruleId)).contains("vent-on-co2");
  }

  private static Engine warm() {
    return new Engine(RULES, T0, StartMode.WARM, EngineLimits.DEFAULT);
  }

  private static OperatorOverride override(String point, Value value, Instant until) {
    return new OperatorOverride(point, value, until, "alice", "test");
  }

  private static Sample live(String point, double value, Instant at) {
    return new Sample(point, Value.of(value), Quality.LIVE, at);
  }

  private static Sample live(String point, boolean value, Instant at) {
    return new Sample(point, Value.of(value), Quality.LIVE, at);
  }
}
