package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CooldownRestoreTest {
  static final RuleSet SITE = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
  static final Instant T0 = Instant.parse("2026-11-02T05:00:00Z");

  /** door-open-alert notifies with a 15 min cooldown; the door opens 2 min after a restart. */
  static List<ActionFired> doorOpensAfterRestart(boolean restoreCooldown) {
    Engine engine = new Engine(SITE, T0, StartMode.COLD);
    if (restoreCooldown) {
      assertThat(engine.restoreCooldown("door-open-alert", 0, T0.minusSeconds(60))).isTrue();
    }
    engine.pass(T0, List.of(Sample.live("door.main.closed", Value.TRUE, T0)), false);
    Instant open = T0.plusSeconds(120);
    return engine
        .pass(open, List.of(Sample.live("door.main.closed", Value.FALSE, open)), false)
        .actions();
  }

  @Test
  void restoredCooldown_keepsAnActionQuiet_untilItsCooldownHasRunFromTheLastFiring() {
    assertThat(doorOpensAfterRestart(false))
        .extracting(ActionFired::ruleId)
        .contains("door-open-alert");
    assertThat(doorOpensAfterRestart(true))
        .extracting(ActionFired::ruleId)
        .doesNotContain("door-open-alert");
  }

  @Test
  void unknownRuleOrAction_isRefused() {
    Engine engine = new Engine(SITE, T0, StartMode.COLD);
    assertThat(engine.restoreCooldown("no-such-rule", 0, T0)).isFalse();
    assertThat(engine.restoreCooldown("door-open-alert", 7, T0)).isFalse();
  }
}
