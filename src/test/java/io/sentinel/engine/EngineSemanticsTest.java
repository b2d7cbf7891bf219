package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.sentinel.testing.FixtureSuite;
import io.sentinel.testing.FixtureTests;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The engine semantics of seed 000 that the example site does not show, as the fixture site {@code
 * src/test/resources/sites/semantics}: one JUnit test per case, each named after the sentence of
 * the seed it pins. The few things the fixture format cannot observe (what leaves the claim diff,
 * the deciding key, the self point) are checked on the engine directly, on the same rule set.
 */
class EngineSemanticsTest {
  private static final Path SITE = Path.of("src/test/resources/sites/semantics");
  private static final FixtureSuite.Report REPORT = FixtureSuite.run(SITE, EngineLimits.DEFAULT);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TestFactory
  Stream<DynamicTest> everyFixtureCaseOfTheSemanticsSitePasses() {
    assertThat(REPORT.problems()).noneMatch(Problem::isError);
    assertThat(REPORT.results()).isNotEmpty();
    return FixtureTests.cases(REPORT);
  }

  /**
   * The site loads without problems, except the one warning it provokes on purpose: two rules
   * fighting at the same band over the hall lights, which the load-time lint warns about ("warning,
   * not error - sometimes deliberate") and the per-point claim-change limit then catches.
   */
  @Test
  void theSiteHasNoProblemsButTheDeliberateSameBandFight() {
    assertThat(REPORT.problems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.isError()).isFalse();
              assertThat(p.code()).isEqualTo("RULE-080");
              assertThat(p.rule()).isEqualTo("hall-light-vacant");
              assertThat(p.message()).contains("hall.light-mode", "hall-light-presence");
            });
  }

  @Test
  void aReEvaluationWithTheSameAnswerSendsNothingToArbitration() {
    Engine engine = warmEngine();
    PassResult first = engine.pass(T0, List.of(live("kitchen.temp", 35, T0)), false);
    assertThat(changesOf(first, "kitchen-exhaust"))
        .singleElement()
        .satisfies(c -> assertThat(c.value()).contains(Value.TRUE));

    Instant t1 = T0.plusSeconds(1);
    PassResult again = engine.pass(t1, List.of(live("kitchen.temp", 36, t1)), false);
    assertThat(again.transitions()).hasSize(1);
    assertThat(engine.status("kitchen-exhaust").orElseThrow().lastCondition()).contains(true);
    assertThat(again.claimChanges()).isEmpty();
    assertThat(again.decisions()).isEmpty();

    Instant t2 = T0.plusSeconds(2);
    PassResult released = engine.pass(t2, List.of(live("kitchen.temp", 20, t2)), false);
    assertThat(changesOf(released, "kitchen-exhaust"))
        .singleElement()
        .matches(ClaimChange::isRelease);
  }

  @Test
  void anInterlockBeatsAutomationOnBandAndAReleaseFallsThroughBandByBand() {
    Engine engine = warmEngine();
    engine.pass(
        T0,
        List.of(
            live("dhw.scald-risk", true, T0),
            live("dhw.boost", true, T0),
            live("dhw.eco", true, T0)),
        false);
    Decision d = engine.decision("dhw.setpoint");
    assertThat(d.winner().map(Claim::ruleId)).contains("dhw-scald-guard");
    assertThat(d.decidingKey()).isEqualTo("band");
    assertThat(d.contenders())
        .extracting(Claim::ruleId)
        .containsExactly("dhw-scald-guard", "dhw-boost", "dhw-eco");

    Instant t1 = T0.plusSeconds(1);
    engine.pass(t1, List.of(live("dhw.scald-risk", false, t1)), false);
    d = engine.decision("dhw.setpoint");
    assertThat(d.winner().map(Claim::ruleId)).contains("dhw-boost");
    assertThat(d.decidingKey()).isEqualTo("band");

    Instant t2 = T0.plusSeconds(2);
    engine.pass(t2, List.of(live("dhw.boost", false, t2)), false);
    assertThat(engine.decision("dhw.setpoint").winner().map(Claim::ruleId)).contains("dhw-eco");

    Instant t3 = T0.plusSeconds(3);
    engine.pass(t3, List.of(live("dhw.eco", false, t3)), false);
    d = engine.output("dhw.setpoint").orElseThrow();
    assertThat(d.winner()).isEmpty();
    assertThat(d.value()).contains(Value.of(10));
  }

  @Test
  void aSuspendedRuleWritesAControlEventAndFlipsItsSelfPoint() {
    Engine engine = warmEngine();
    engine.pass(T0, List.of(live("room.co2", 600, T0)), false);
    List<Sample> toggle = new ArrayList<>();
    for (int k = 0; k < 700; k++) {
      toggle.add(live("room.co2", k % 2 == 0 ? 800 : 900, T0.plusSeconds(1).plusMillis(10L * k)));
    }
    PassResult r = engine.pass(T0.plusSeconds(8), toggle, false);
    assertThat(r.events())
        .anySatisfy(
            e -> {
              assertThat(e.kind()).isEqualTo("rule-suspended");
              assertThat(e.subject()).isEqualTo("vent-on-co2");
            });
    assertThat(r.selfPoints())
        .anySatisfy(
            s -> {
              assertThat(s.name()).isEqualTo("rule.vent-on-co2.suspended");
              assertThat(s.value()).isEqualTo(Value.TRUE);
            });
    assertThat(engine.status("vent-on-co2").orElseThrow().state()).isEqualTo(RuleState.SUSPENDED);
  }

  private static List<ClaimChange> changesOf(PassResult r, String ruleId) {
    return r.claimChanges().stream().filter(c -> c.ruleId().equals(ruleId)).toList();
  }

  private static Engine warmEngine() {
    RuleSet rules = Site.load(SITE).site().orElseThrow().ruleSet();
    return new Engine(rules, T0, StartMode.WARM, EngineLimits.DEFAULT);
  }

  private static Sample live(String point, boolean value, Instant at) {
    return new Sample(point, Value.of(value), Quality.LIVE, at);
  }

  private static Sample live(String point, double value, Instant at) {
    return new Sample(point, Value.of(value), Quality.LIVE, at);
  }
}
