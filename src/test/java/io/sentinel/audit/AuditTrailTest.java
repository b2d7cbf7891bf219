package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: "releases and overrides' ends are audited like assertions". On the example site's
 * engine, a claim released because the condition turned false, because an input was lost, and
 * because a revision removed its rule, and an operator override that ran out while the engine ran:
 * each is a record with the rule's inputs as they stood, the point's outcome after it, why, and the
 * same derived event id an assertion has.
 */
class AuditTrailTest {
  private static final RuleSet RULES = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final String PUMP = "boiler.ch1.pump";

  private final Engine engine = new Engine(RULES, T0, StartMode.WARM, EngineLimits.DEFAULT);
  private final AuditTrail trail =
      new AuditTrail(RULES, 3, engine.points()::state, engine::decision);

  private List<AuditEntry> pass(Instant at, Sample... samples) {
    PassResult r = engine.pass(at, List.of(samples), false);
    return trail.entries(at, r).stream().filter(e -> !e.kind().equals("conflict")).toList();
  }

  private static Sample flow(double degC, Instant at) {
    return Sample.live("boiler.ch1.flow-temp", Value.of(degC), at);
  }

  @Test
  void aReleaseOnAFalseCondition_isRecordedLikeTheAssertionBeforeIt() {
    pass(T0, flow(42, T0), Sample.live("boiler.ch1.demand", Value.FALSE, T0));
    Instant t1 = T0.plusSeconds(10);
    AuditEntry release = pumpEntry(pass(t1, flow(30, t1)));
    assertThat(release.kind()).isEqualTo("release");
    assertThat(release.eventId())
        .isEqualTo("release/pump-run-on/" + PUMP + "/r3/" + t1.toEpochMilli());
    assertThat(release.reason()).isEqualTo("condition false");
    assertThat(release.band()).isEqualTo("automation");
    assertThat(release.matchedInputs().get("flow"))
        .containsEntry("point", "boiler.ch1.flow-temp")
        .containsEntry("value", 30L)
        .containsEntry("quality", "live");
    assertThat(release.matchedInputs()).containsKey("demand");
    assertThat(release.resolvedOutputs())
        .singleElement()
        .satisfies(o -> assertThat(o).containsEntry("point", PUMP).containsEntry("rule", null));
    assertThat(release.detail()).containsEntry("released", true);
    assertThat(release.ts()).isEqualTo(t1);
  }

  @Test
  void aReleaseOnInputLoss_saysSo_withTheLostInputsQuality() {
    pass(T0, flow(42, T0), Sample.live("boiler.ch1.demand", Value.FALSE, T0));
    Instant t1 = T0.plusSeconds(10);
    AuditEntry release =
        pumpEntry(
            pass(t1, new Sample("boiler.ch1.flow-temp", Value.ABSENT, Quality.UNAVAILABLE, t1)));
    assertThat(release.kind()).isEqualTo("release");
    assertThat(release.reason()).isEqualTo("input loss");
    assertThat(release.matchedInputs().get("flow")).containsEntry("quality", "unavailable");
    assertThat(release.detail()).containsEntry("released", true);
  }

  @Test
  void aReleaseBecauseARevisionRemovedTheRule_namesTheRuleAndTheRevision() {
    pass(T0, flow(42, T0), Sample.live("boiler.ch1.demand", Value.FALSE, T0));
    RuleSet without =
        new RuleSet(
            RULES.registry(),
            RULES.rules().stream().filter(r -> !r.id().equals("pump-run-on")).toList(),
            RULES.derived());
    Engine.Activation a = engine.activate(without);
    AuditTrail next = new AuditTrail(without, 4, a.engine().points()::state, a.engine()::decision);
    AuditEntry release = pumpEntry(next.entries(a.engine().clock(), a.result()));
    assertThat(release.kind()).isEqualTo("release");
    assertThat(release.ruleId()).isEqualTo("pump-run-on");
    assertThat(release.revision()).isEqualTo(4);
    assertThat(release.reason()).contains("removed by a revision");
    assertThat(release.matchedInputs()).isEmpty();
    assertThat(release.detail()).containsEntry("released", true);
  }

  @Test
  void anOverrideThatRunsOut_isAnOverrideRecordMarkedEnded() {
    pass(T0, flow(42, T0), Sample.live("boiler.ch1.demand", Value.FALSE, T0));
    // Inside the flow's stale_after (30 s): the pump rule's claim stands throughout.
    Instant until = T0.plusSeconds(20);
    engine.override(new OperatorOverride(PUMP, Value.FALSE, until, "alice", "service"));
    AuditEntry set = pumpEntry(pass(T0.plusSeconds(1)));
    assertThat(set.kind()).isEqualTo("override");
    assertThat(set.detail()).containsEntry("claimed", false).containsEntry("ended", false);

    AuditEntry ended = pumpEntry(pass(until));
    assertThat(ended.kind()).isEqualTo("override");
    assertThat(ended.ruleId()).isEqualTo(OperatorOverride.RULE_ID);
    assertThat(ended.reason()).isEqualTo("override expired");
    assertThat(ended.detail()).containsEntry("ended", true);
    // The point's outcome after the end: the rule's claim again.
    assertThat(ended.resolvedOutputs())
        .singleElement()
        .satisfies(
            o -> assertThat(o).containsEntry("value", true).containsEntry("rule", "pump-run-on"));
    assertThat(ended.ts()).isEqualTo(until);
  }

  /** The one record of the pass about the pump. */
  private static AuditEntry pumpEntry(List<AuditEntry> entries) {
    List<AuditEntry> pump =
        entries.stream()
            .filter(e -> e.resolvedOutputs().stream().anyMatch(o -> PUMP.equals(o.get("point"))))
            .toList();
    assertThat(pump).as("the pump's records in %s", entries).hasSize(1);
    return pump.get(0);
  }
}
