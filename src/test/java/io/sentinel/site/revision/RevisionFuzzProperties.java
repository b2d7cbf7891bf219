package io.sentinel.site.revision;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.Engine;
import io.sentinel.engine.StartMode;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionMutations.Kind;
import io.sentinel.site.revision.RevisionMutations.Mutation;
import io.sentinel.site.yaml.Problem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Random mutations of valid revision documents, in YAML and in JSON, through the gateway's pure
 * path (check, gate, activate): nothing throws, a set with any error never activates, and a set
 * that activates is the whole document, every rule of it.
 */
class RevisionFuzzProperties {
  private static final Site SITE = RevisionDocumentTest.SITE;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final RevisionGate.Active ACTIVE =
      RevisionGateTest.active(SITE, 1, RevisionMutations.RULES);
  private static final String YAML = RevisionMutations.yaml(2, "example");
  private static final String JSON = RevisionMutations.json(2, "example");

  @Provide
  Arbitrary<String> mutated() {
    Arbitrary<String> fragment =
        Arbitraries.oneOf(
            Arbitraries.of(RevisionMutations.FRAGMENTS), Arbitraries.strings().ofMaxLength(6));
    Arbitrary<Mutation> mutation =
        Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.integers().between(0, 100_000),
                Arbitraries.integers().between(0, 100_000),
                fragment)
            .as(Mutation::new);
    return Combinators.combine(
            Arbitraries.of(YAML, JSON), mutation.list().ofMinSize(1).ofMaxSize(3))
        .as(RevisionMutations::apply);
  }

  @Property(tries = 400)
  void aMutatedRevision_neverActivatesInPart_andNeverThrows(@ForAll("mutated") String doc) {
    RevisionDocument.Checked c = RevisionDocument.check("ruleset", doc, SITE.basis(), "example");
    boolean hasError = c.problems().stream().anyMatch(Problem::isError);
    assertThat(c.valid()).isEqualTo(!hasError);
    c.problems().forEach(p -> assertThat(p.message()).isNotBlank());

    RevisionGate.Verdict v =
        RevisionGate.decide(c, ACTIVE, new RevisionGate.Trust(Optional.empty(), true), "ruleset");
    // Both sides are exercised: a fuzzer that only ever produced rejects would prove little.
    Statistics.collect(v.getClass().getSimpleName());
    if (!(v instanceof RevisionGate.Accept a)) {
      // Issue 17: without keys a change to an interlock or safety rule cannot be reviewed, so a
      // mutation that touches one is rejected even where unsigned revisions are allowed.
      assertThat(
              v instanceof RevisionGate.Unchanged
                  || !c.valid()
                  || c.revision().orElse(0) <= 1
                  || (v instanceof RevisionGate.Reject r && r.reason().equals("unreviewed")))
          .as("a valid newer revision is accepted without keys unless it needs a review")
          .isTrue();
      return;
    }
    assertThat(c.valid()).isTrue();
    // Whole: every rule the document lists is in the set, in order, none dropped or added.
    rawRuleIds(doc)
        .ifPresent(ids -> assertThat(a.ruleSet().rules()).extracting(Rule::id).isEqualTo(ids));

    Engine engine = new Engine(ACTIVE.ruleSet(), T0, StartMode.COLD);
    engine.pass(T0, samples(T0, 50), false);
    Engine.Activation act = engine.activate(a.ruleSet());
    assertThat(act.engine().ruleSet()).isSameAs(a.ruleSet());
    Instant t1 = T0.plusSeconds(1);
    act.engine().pass(t1, samples(t1, 99), false);
  }

  /** The ids of the rules list as a plain YAML 1.2 reader sees them (empty if it cannot). */
  private static Optional<List<String>> rawRuleIds(String doc) {
    try {
      Object tree = new Load(LoadSettings.builder().build()).loadFromString(doc);
      if (!(tree instanceof Map<?, ?> m) || !(m.get("rules") instanceof List<?> rules)) {
        return Optional.empty();
      }
      List<String> ids = new ArrayList<>();
      for (Object r : rules) {
        if (!(r instanceof Map<?, ?> rule) || !(rule.get("id") instanceof String id)) {
          return Optional.empty();
        }
        ids.add(id);
      }
      return Optional.of(ids);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static List<Sample> samples(Instant t, double flow) {
    return List.of(
        new Sample("boiler.ch1.flow-temp", Value.of(flow), Quality.LIVE, t),
        new Sample("boiler.ch1.pressure", Value.of(1.5), Quality.LIVE, t),
        new Sample("boiler.ch1.demand", Value.of(false), Quality.LIVE, t),
        new Sample("door.main.closed", Value.of(false), Quality.LIVE, t));
  }
}
