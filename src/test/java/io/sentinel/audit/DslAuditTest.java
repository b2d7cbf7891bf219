package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seed 001, "Audit fields": a conflict's audit entry names both contenders and the deciding key, in
 * turn priority, freshest input and matched conditions; an emit is audited as the action it is.
 */
class DslAuditTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static List<AuditEntry> conflicts(
      RuleSet set, Engine engine, PassResult result, Instant at) {
    return new AuditTrail(set, 7, engine.points()::state, engine::decision)
        .entries(at, result).stream().filter(e -> e.kind().equals("conflict")).toList();
  }

  private static List<Object> contenderRules(AuditEntry e) {
    return e.contenders().stream().map(c -> c.get("rule")).toList();
  }

  @Test
  void conflictEntries_nameBothContendersAndEachDecidingKey() {
    RuleSet set = Site.load(Path.of("src/test/resources/sites/dsl")).site().orElseThrow().ruleSet();
    Engine engine = new Engine(set, T, StartMode.WARM);
    PassResult first =
        engine.pass(
            T,
            List.of(Sample.live("p.flag", Value.TRUE, T), Sample.live("p.temp", Value.of(15), T)),
            false);
    List<AuditEntry> atStart = conflicts(set, engine, first, T);
    assertThat(atStart)
        .filteredOn(e -> e.resolvedOutputs().get(0).get("point").equals("out.lamp1"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.decidingKey()).isEqualTo("priority");
              assertThat(e.ruleId()).isEqualTo("lamp1-show");
              assertThat(contenderRules(e)).containsExactly("lamp1-show", "lamp1-ambient");
              assertThat(e.revision()).isEqualTo(7);
            });

    Instant later = T.plusSeconds(5);
    PassResult second =
        engine.pass(later, List.of(Sample.live("p.mode", Value.of("auto"), later)), false);
    List<AuditEntry> afterMode = conflicts(set, engine, second, later);
    assertThat(afterMode)
        .filteredOn(e -> e.resolvedOutputs().get(0).get("point").equals("out.lamp2"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.decidingKey()).isEqualTo("freshness");
              assertThat(contenderRules(e)).containsExactly("lamp2-by-mode", "lamp2-by-flag");
            });
    assertThat(afterMode)
        .filteredOn(e -> e.resolvedOutputs().get(0).get("point").equals("out.lamp3"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.decidingKey()).isEqualTo("matched_conditions");
              assertThat(contenderRules(e)).containsExactly("lamp3-two-of-two", "lamp3-one-of-two");
            });
  }

  @Test
  void anEmit_isAuditedAsAnAction_withItsEvent() {
    RuleSet set = Site.load(Path.of("seeds/venue")).site().orElseThrow().ruleSet();
    Engine engine = new Engine(set, T, StartMode.WARM);
    PassResult result =
        engine.pass(
            T,
            List.of(
                Sample.live("cell.4.estop_a", Value.of("open"), T),
                Sample.live("cell.4.estop_b", Value.of("closed"), T)),
            false);
    List<AuditEntry> entries =
        new AuditTrail(set, 1, engine.points()::state, engine::decision).entries(T, result);
    assertThat(entries)
        .filteredOn(e -> e.kind().equals("action"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.ruleId()).isEqualTo("cell4-estop-hold");
              assertThat(e.band()).isEqualTo("safety");
              assertThat(e.priority()).isEqualTo(100);
              assertThat(e.detail().get("action")).isEqualTo("emit");
              assertThat(e.detail().get("fields").toString()).contains("audit.safety_hold");
            });
    assertThat(entries).filteredOn(e -> e.kind().equals("firing")).hasSize(2);
  }
}
