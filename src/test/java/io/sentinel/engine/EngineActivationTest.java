package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.yaml.Problem;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 004 on a revision: a rule whose definition hash is unchanged keeps its state, a changed one
 * resets, toggling {@code enabled} never resets it; activation happens between two passes.
 */
class EngineActivationTest {
  private static final Site SITE = Site.load(Path.of(".")).site().orElseThrow();
  private static final String BOILER = Site.read(Path.of("rules/boiler.yaml"));
  private static final String CUTOFF = "boiler-overheat-cutoff";
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private Engine engine;
  private Instant now;

  static RuleSet revision(String rules) {
    RevisionDocument.Checked c =
        RevisionDocument.check(
            "ruleset", "revision: 2\nsite: example\nrules:\n" + rules, SITE.basis(), "example");
    assertThat(c.problems()).noneMatch(Problem::isError);
    return c.ruleSet().orElseThrow();
  }

  @BeforeEach
  void startedAndWarm() {
    engine = new Engine(revision(BOILER), T0, StartMode.COLD);
    now = T0;
    PassResult first =
        pass(
            live("boiler.ch1.flow-temp", 50),
            live("boiler.ch1.pressure", 1.5),
            live("boiler.ch1.demand", true));
    assertThat(first.decisions())
        .anySatisfy(
            d -> {
              assertThat(d.pointId()).isEqualTo("boiler.ch1.burner");
              assertThat(d.value()).contains(Value.TRUE);
            });
    assertThat(state(CUTOFF)).isEqualTo(RuleState.ACTIVE);
  }

  @Test
  void unchangedRule_keepsItsStateAcrossARevision_andAChangedOneResets() {
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isTrue();
    pass(live("boiler.ch1.flow-temp", 50));

    Engine.Activation a = activate(BOILER.replace("flow.value > 35", "flow.value > 30"));
    assertThat(a.changes().changed()).containsExactly("pump-run-on");
    assertThat(a.changes().kept()).contains(CUTOFF, "burner-on-demand");
    // The kept burner claim did not move: nothing leaves arbitration.
    assertThat(a.result().claimChanges()).noneMatch(c -> c.ruleId().equals("burner-on-demand"));
    assertThat(a.result().decisions()).isEmpty();
    assertThat(engine.status("burner-on-demand").orElseThrow().claims())
        .containsEntry("boiler.ch1.burner", Value.TRUE);
    // The cut-off's cooldown runs on: a second overheat within 15 min notifies nobody.
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isFalse();
    pass(live("boiler.ch1.flow-temp", 50));

    Engine.Activation b =
        activate(
            BOILER
                .replace("flow.value > 35", "flow.value > 30")
                .replace(">= 95 degC", ">= 96 degC"));
    assertThat(b.changes().changed()).containsExactly(CUTOFF);
    assertThat(b.result().events()).anySatisfy(e -> assertThat(e.kind()).isEqualTo("warmup-left"));
    // Reset: its cooldown is gone, so the next overheat notifies again.
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isTrue();
  }

  @Test
  void togglingEnabled_neverResetsState() {
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isTrue();
    assertThat(engine.status(CUTOFF).orElseThrow().claims())
        .containsEntry("boiler.ch1.burner", Value.FALSE);

    Engine.Activation off = activate(disabled(BOILER, CUTOFF));
    assertThat(off.changes().toggled()).containsExactly(CUTOFF);
    assertThat(state(CUTOFF)).isEqualTo(RuleState.DISABLED);
    assertThat(off.result().claimChanges())
        .anySatisfy(
            c -> {
              assertThat(c.ruleId()).isEqualTo(CUTOFF);
              assertThat(c.isRelease()).isTrue();
            });
    // The burner follows its demand rule again while the interlock is off.
    assertThat(off.result().decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.value()).contains(Value.TRUE));

    Engine.Activation on = activate(BOILER);
    assertThat(on.changes().toggled()).containsExactly(CUTOFF);
    // Back where it was: active (no second warmup) and over temperature, so it claims at once ...
    assertThat(state(CUTOFF)).isEqualTo(RuleState.ACTIVE);
    assertThat(on.result().decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.value()).contains(Value.FALSE));
    // ... and its cooldown ran on while it was off.
    pass(live("boiler.ch1.flow-temp", 50));
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isFalse();
  }

  @Test
  void rewordingADescription_isNoChange() {
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isTrue();
    Engine.Activation a =
        activate(
            BOILER.replace(
                "description: Burner off on over-temperature",
                "description: The burner goes off on over-temperature"));
    assertThat(a.changes().none()).isTrue();
    pass(live("boiler.ch1.flow-temp", 50));
    assertThat(notified(pass(live("boiler.ch1.flow-temp", 100)))).isFalse();
  }

  @Test
  void removedRule_releasesItsClaims_andANewRuleDecidesFromTheActivation() {
    String withoutDemand = BOILER.substring(0, BOILER.indexOf("- id: burner-on-demand"));
    String rest = BOILER.substring(BOILER.indexOf("- id: boiler-overheat-cutoff"));
    String pumpAlways =
        """
        - id: pump-always
          band: automation
          inputs: { demand: boiler.ch1.demand }
          trigger: { on: transition, of: demand }
          when: demand.value
          claims: [ { point: boiler.ch1.pump, value: true } ]
          on_input_loss: release
          warmup: all_inputs_live
        """;
    Engine.Activation a = activate(withoutDemand + rest + pumpAlways);
    assertThat(a.changes().removed()).containsExactly("burner-on-demand");
    assertThat(a.changes().added()).containsExactly("pump-always");
    assertThat(a.result().claimChanges())
        .anySatisfy(
            c -> {
              assertThat(c.ruleId()).isEqualTo("burner-on-demand");
              assertThat(c.isRelease()).isTrue();
              assertThat(c.reason()).contains("removed");
            });
    assertThat(a.result().decisions())
        .extracting(d -> d.pointId() + "=" + d.value().map(Value::toString).orElse("released"))
        .containsExactlyInAnyOrder("boiler.ch1.burner=" + releasedBurner(), "boiler.ch1.pump=true");
    assertThat(engine.ruleSet().rule("burner-on-demand")).isEmpty();
  }

  @Test
  void pointValuesAndTimeCarryOver() {
    Instant before = engine.clock();
    activate(BOILER.replace("flow.value > 35", "flow.value > 30"));
    assertThat(engine.clock()).isEqualTo(before);
    assertThat(engine.points().state("boiler.ch1.flow-temp").orElseThrow().quality())
        .isEqualTo(Quality.LIVE);
    // The changed pump rule reads live inputs at once: demand ends, flow is hot, the pump runs.
    PassResult r = pass(live("boiler.ch1.demand", false));
    assertThat(r.decisions())
        .anySatisfy(
            d -> {
              assertThat(d.pointId()).isEqualTo("boiler.ch1.pump");
              assertThat(d.value()).contains(Value.TRUE);
            });
  }

  private String releasedBurner() {
    return SITE.basis()
        .points()
        .find("boiler.ch1.burner")
        .orElseThrow()
        .releaseValue()
        .map(Value::toString)
        .orElse("released");
  }

  static String disabled(String rules, String id) {
    return rules.replace("- id: " + id + "\n", "- id: " + id + "\n  enabled: false\n");
  }

  private Engine.Activation activate(String rules) {
    Engine.Activation a = engine.activate(revision(rules));
    engine = a.engine();
    return a;
  }

  private RuleState state(String id) {
    return engine.status(id).orElseThrow().state();
  }

  private static boolean notified(PassResult r) {
    return r.actions().stream().anyMatch(a -> a.ruleId().equals(CUTOFF));
  }

  private PassResult pass(Sample... samples) {
    List<Sample> at =
        java.util.Arrays.stream(samples)
            .map(s -> new Sample(s.pointId(), s.value(), s.quality(), now))
            .toList();
    PassResult r = engine.pass(now, at, false);
    now = now.plusSeconds(1);
    return r;
  }

  private static Sample live(String point, boolean value) {
    return new Sample(point, Value.of(value), Quality.LIVE, T0);
  }

  private static Sample live(String point, double value) {
    return new Sample(point, Value.of(value), Quality.LIVE, T0);
  }
}
