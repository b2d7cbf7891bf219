package io.sentinel.site;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.EngineLimits;
import io.sentinel.point.Registry;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.rule.Trigger;
import io.sentinel.rule.Warmup;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import io.sentinel.testing.FixtureLoader;
import io.sentinel.testing.FixtureRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The seed's own examples load as written, with YAML 1.2 meanings. */
class SeedExamplesTest {
  private static final String SEED_RULE =
      """
      - id: pump-run-on
        band: automation

        inputs:
          flow:   boiler.ch1.flow-temp
          demand: boiler.ch1.demand

        trigger:
          on: transition
          of: [flow, demand]

        when: |
          demand.value == false and flow.value > 35

        claims:
          - point: boiler.ch1.pump
            value: true
            expires_in: 20m

        on_input_loss: release
        warmup: all_inputs_live
      """;

  private static final String SEED_FIXTURE =
      """
      - rule: pump-run-on
        given:
          boiler.ch1.flow-temp:  { value: 42, quality: live }
          boiler.ch1.demand:     { value: false, quality: live }
        expect_claims:
          - { point: boiler.ch1.pump, value: true }
      """;

  private static Registry registry() {
    Problems p = new Problems();
    Registry r = RegistryLoader.load("points.yaml", Site.read(Path.of("seeds/points.yaml")), p);
    assertThat(p.sorted()).isEmpty();
    return r;
  }

  @Test
  void seedRuleShape_loads_andOnMeansTheWordOn() {
    Problems problems = new Problems();
    List<Rule> rules = RuleLoader.load("seed.yaml", SEED_RULE, registry(), problems);
    assertThat(problems.sorted()).isEmpty();
    Rule rule = rules.get(0);
    assertThat(rule.trigger()).isEqualTo(new Trigger.OnTransition(List.of("flow", "demand")));
    assertThat(rule.claims().get(0).expiresIn()).contains(Duration.ofMinutes(20));
    assertThat(rule.band()).isEqualTo(Band.AUTOMATION);
    assertThat(rule.warmup()).isEqualTo(new Warmup.AllInputsLive());
  }

  @Test
  void seedFixture_passesAgainstTheSeedRule() {
    Problems problems = new Problems();
    Registry registry = registry();
    RuleSet set =
        new RuleSet(registry, RuleLoader.load("seed.yaml", SEED_RULE, registry, problems));
    var cases = FixtureLoader.load("seed-fixture.yaml", SEED_FIXTURE, set, problems);
    assertThat(problems.sorted()).isEmpty();
    var result = new FixtureRunner(set, EngineLimits.DEFAULT).run(cases.get(0));
    assertThat(result.failures()).isEmpty();
  }

  @Test
  void yaml11Booleans_areNotBooleans() {
    Problems problems = new Problems();
    RuleLoader.load(
        "yes.yaml",
        SEED_RULE.replace("value: true", "value: yes").replace("on: transition", "on: yes"),
        registry(),
        problems);
    assertThat(problems.sorted())
        .extracting(Problem::format)
        .anySatisfy(
            m ->
                assertThat(m)
                    .contains(
                        "trigger.on must be transition, edge, quality or interval (found 'yes')"))
        .anySatisfy(m -> assertThat(m).contains("expected true or false (bool), found 'yes'"));
  }

  @Test
  void definitionHash_ignoresEnabled_andSeesEveryOtherChange() {
    Registry registry = registry();
    Problems problems = new Problems();
    String disabled =
        SEED_RULE.replace("warmup: all_inputs_live", "warmup: all_inputs_live\n  enabled: false");
    String changed = SEED_RULE.replace("> 35", "> 36");
    String base = RuleLoader.load("a", SEED_RULE, registry, problems).get(0).definitionHash();
    assertThat(RuleLoader.load("b", disabled, registry, problems).get(0).definitionHash())
        .isEqualTo(base);
    assertThat(RuleLoader.load("c", changed, registry, problems).get(0).definitionHash())
        .isNotEqualTo(base);
    assertThat(problems.sorted()).isEmpty();
  }

  @Test
  void brokenYaml_isAProblemWithItsLine() {
    Problems problems = new Problems();
    RuleLoader.load("broken.yaml", "- id: x\n  band: [automation\n", registry(), problems);
    assertThat(problems.sorted())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.code()).isEqualTo("YAML-001");
              assertThat(p.line()).isGreaterThan(0);
            });
  }
}
