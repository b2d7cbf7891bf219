package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.testing.SiteCopy;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seed 003: "reset starts a new generation, so replaying never reuses an id". */
class ActionIdTest {
  private static final Instant T0 = Instant.parse("2026-11-02T05:00:00Z");

  @Test
  void formatsAndParsesBack_andReadsAnIdOfBeforeGenerationsAsGenerationZero() {
    ActionId id = new ActionId("door-open-alert", 0, 3, 7);
    assertThat(id.toString()).isEqualTo("door-open-alert/0/3/7");
    assertThat(ActionId.parse(id.toString())).contains(id);
    assertThat(ActionId.parse("door-open-alert/1/5"))
        .contains(new ActionId("door-open-alert", 1, 0, 5));
    assertThat(ActionId.parse("door-open-alert/x/1/2")).isEmpty();
    assertThat(ActionId.parse("door-open-alert")).isEmpty();
  }

  @Test
  void aChangedRuleNumbersItsActionsInANewGeneration_anUnchangedOneNumbersOn(@TempDir Path dir)
      throws Exception {
    RuleSet before = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    Engine engine = new Engine(before, T0, StartMode.WARM, EngineLimits.DEFAULT);
    assertThat(openDoor(engine, T0)).containsExactly("door-open-alert/0/1/1");

    // Same definition: the numbering goes on in the same generation.
    engine = engine.activate(before).engine();
    assertThat(openDoor(engine, T0.plusSeconds(3600))).containsExactly("door-open-alert/0/1/2");

    SiteCopy.of(dir);
    SiteCopy.edit(dir, "door.yaml", s -> s.replace("Door open at", "Door opened at"));
    RuleSet changed = Site.load(dir).site().orElseThrow().ruleSet();
    engine = engine.activate(changed).engine();
    assertThat(openDoor(engine, T0.plusSeconds(7200))).containsExactly("door-open-alert/0/2/1");

    // Removed by one revision and back in the next: still never an id it has used.
    SiteCopy.edit(dir, "door.yaml", s -> s.replace("id: door-open-alert", "id: door-open-alarm"));
    engine = engine.activate(Site.load(dir).site().orElseThrow().ruleSet()).engine();
    engine = engine.activate(before).engine();
    assertThat(openDoor(engine, T0.plusSeconds(10800))).containsExactly("door-open-alert/0/3/1");
  }

  @Test
  void aRestartNumbersOnPastTheGenerationTheLogHolds() {
    RuleSet rules = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    Engine engine = new Engine(rules, T0, StartMode.WARM, EngineLimits.DEFAULT);
    assertThat(engine.restoreCooldown("door-open-alert", 0, T0.minusSeconds(3600), 4)).isTrue();
    assertThat(openDoor(engine, T0)).containsExactly("door-open-alert/0/5/1");
  }

  private static List<String> openDoor(Engine engine, Instant at) {
    engine.pass(at, List.of(Sample.live("door.main.closed", Value.TRUE, at)), false);
    Instant open = at.plusSeconds(1);
    List<String> ids =
        engine
            .pass(open, List.of(Sample.live("door.main.closed", Value.FALSE, open)), false)
            .actions()
            .stream()
            .map(ActionFired::id)
            .toList();
    // Closed again, so that a changed rule evaluating at its activation has nothing to notify.
    Instant closed = open.plusSeconds(1);
    engine.pass(closed, List.of(Sample.live("door.main.closed", Value.TRUE, closed)), false);
    return ids;
  }
}
