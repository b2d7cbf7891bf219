package io.sentinel.pass;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.Command;
import io.sentinel.command.CommandSettings;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.StartMode;
import io.sentinel.pass.ShadowPass.Difference;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.yaml.Problem;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shadow beside the active {@link Pass} (docs/shadow.md), without a gateway: it reports exactly
 * the claim and the command where a changed threshold parts the two, and when they agree again; its
 * commands go to the recorder only; started warm it agrees at once where its rules are the same;
 * the same rule set in shadow reports nothing.
 */
class ShadowPassTest {
  private static final Site SITE = Site.load(Path.of(".")).site().orElseThrow();
  private static final String RULES =
      Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));
  private static final String PUMP = "boiler.ch1.pump";
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final CommandSettings SETTINGS = CommandSettings.DEFAULT;

  private Pass active;
  private final List<Command> recorded = new ArrayList<>();
  private Instant now = T0;

  static RuleSet rules(String text) {
    RevisionDocument.Checked c =
        RevisionDocument.check(
            "ruleset", "revision: 2\nsite: example\nrules:\n" + text, SITE.basis(), "example");
    assertThat(c.problems()).noneMatch(Problem::isError);
    return c.ruleSet().orElseThrow();
  }

  @BeforeEach
  void warm() {
    active = Pass.simulated(new Engine(rules(RULES), T0, StartMode.COLD), SETTINGS);
    run(
        null,
        live("boiler.ch1.flow-temp", 30),
        live("boiler.ch1.pressure", 1.5),
        live("boiler.ch1.demand", false));
  }

  @Test
  void aChangedThreshold_reportsExactlyTheClaimAndTheCommandThatDiffer() {
    ShadowPass shadow = start(RULES.replace("flow.value > 35", "flow.value > 45"));
    assertThat(shadow.open()).isEmpty();

    List<Difference> at40 = run(shadow, live("boiler.ch1.flow-temp", 40));
    assertThat(at40)
        .extracting(d -> d.kind() + " " + d.pointId() + " " + d.ruleId().orElse(""))
        .containsExactlyInAnyOrder(
            "CLAIM " + PUMP + " pump-run-on", "COMMAND " + PUMP + " pump-run-on");
    Difference command =
        at40.stream().filter(d -> d.kind() == Difference.Kind.COMMAND).findFirst().orElseThrow();
    assertThat(command.active()).contains(Value.TRUE);
    assertThat(command.shadow()).isEmpty();
    assertThat(command.activeRule()).contains("pump-run-on");
    assertThat(command.differs()).isTrue();
    assertThat(command.at()).isEqualTo(now.minusSeconds(1));
    assertThat(recorded).isEmpty(); // the shadow decided nothing new for the pump

    assertThat(run(shadow, live("boiler.ch1.flow-temp", 41))).isEmpty(); // unchanged: not again

    List<Difference> at50 = run(shadow, live("boiler.ch1.flow-temp", 50));
    assertThat(at50).hasSize(2).allSatisfy(d -> assertThat(d.differs()).isFalse());
    assertThat(shadow.open()).isEmpty();
    assertThat(recorded).extracting(Command::pointId).containsExactly(PUMP);
    assertThat(recorded.get(0).value()).isEqualTo(Value.TRUE);
    // The active pass's simulated driver got the pump's command once; the shadow's went nowhere.
    assertThat(active.simulatedCommands()).filteredOn(c -> c.pointId().equals(PUMP)).hasSize(1);
  }

  @Test
  void theSameRulesInShadow_reportNothing() {
    ShadowPass shadow = start(RULES);
    for (double t : new double[] {40, 50, 34, 96, 60}) {
      assertThat(run(shadow, live("boiler.ch1.flow-temp", t))).as("at %s", t).isEmpty();
    }
    assertThat(run(shadow, live("boiler.ch1.demand", true))).isEmpty();
    assertThat(shadow.open()).isEmpty();
  }

  private ShadowPass start(String rules) {
    return ShadowPass.start(
        active.engine(), rules(rules), false, EngineLimits.DEFAULT, SETTINGS, recorded::add);
  }

  private List<Difference> run(ShadowPass shadow, Sample... samples) {
    List<Sample> at = new ArrayList<>();
    for (Sample s : samples) {
      at.add(new Sample(s.pointId(), s.value(), s.quality(), now));
    }
    Pass.Outcome o = active.run(now, at, false);
    List<Difference> d =
        shadow == null ? List.of() : shadow.follow(now, at, false, active.engine(), o.result());
    now = now.plusSeconds(1);
    return d;
  }

  private static Sample live(String point, boolean value) {
    return new Sample(point, Value.of(value), Quality.LIVE, T0);
  }

  private static Sample live(String point, double value) {
    return new Sample(point, Value.of(value), Quality.LIVE, T0);
  }
}
