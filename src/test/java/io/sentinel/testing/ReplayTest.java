package io.sentinel.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.EngineLimits;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LogWindow;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.wire.PassLogJson;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayTest {
  static final LogWindow SHIPPED = PassLogJson.read(ExampleSiteDay.SHIPPED);

  static ReplayDiff<CommandIntent> replay(Path site) {
    RuleSet rules = Site.load(site).site().orElseThrow().ruleSet();
    Instant from = SHIPPED.from().orElseThrow();
    Instant to = SHIPPED.to().orElseThrow();
    Replay.Outcome outcome =
        new Replay(rules, EngineLimits.DEFAULT).run(SHIPPED.observations(), from, to);
    assertThat(outcome.skipped()).isEmpty();
    return ReplayDiff.compare(SHIPPED.commands(), outcome.commands(), from, to, Duration.ZERO);
  }

  @Test
  void shippedWindow_withTheExampleRules_showsNoDifference() {
    ReplayDiff<CommandIntent> diff = replay(Path.of("."));
    assertThat(diff.lines(false))
        .containsExactly("44 matched, 0 only in replay, 0 only in history");
    assertThat(diff.noDifference()).isTrue();
  }

  @Test
  void longerStrikePulse_showsOnePairPerAcceptedPress_andNothingElse(@TempDir Path dir)
      throws Exception {
    SiteCopy.of(dir);
    SiteCopy.edit(dir, "door.yaml", y -> y.replace("duration: 3s", "duration: 4s"));
    ReplayDiff<CommandIntent> diff = replay(dir);
    // Five presses reached the strike (09:15:03 fell in the cooldown, 14:10 in the lockdown).
    assertThat(diff.onlyInHistory()).hasSize(5).allMatch(c -> c.detail().equals("3s"));
    assertThat(diff.onlyInReplay()).hasSize(5).allMatch(c -> c.detail().equals("4s"));
    assertThat(diff.onlyInReplay().stream().map(CommandIntent::at))
        .containsExactlyElementsOf(diff.onlyInHistory().stream().map(CommandIntent::at).toList());
    assertThat(diff.matched()).hasSize(44 - 5);
  }

  @Test
  void lowerCutOff_changesOnlyTheBurner_andOnlyWhenTheFlowWasAbove90(@TempDir Path dir)
      throws Exception {
    SiteCopy.of(dir);
    SiteCopy.edit(
        dir, "boiler.yaml", y -> y.replace("flow.value >= 95 degC", "flow.value >= 90 degC"));
    ReplayDiff<CommandIntent> diff = replay(dir);
    List<CommandIntent> differences = new ArrayList<>(diff.onlyInReplay());
    differences.addAll(diff.onlyInHistory());
    assertThat(differences)
        .isNotEmpty()
        .allMatch(c -> c.pointId().equals("boiler.ch1.burner"))
        .allMatch(
            c ->
                within(c, ExampleSiteDay.at(12, 45, 0), ExampleSiteDay.at(13, 0, 0))
                    || within(c, ExampleSiteDay.at(18, 10, 0), ExampleSiteDay.at(19, 0, 0)));
    // The warm spell (flow up to 92.6 degC) now trips the interlock: the history never cut there.
    assertThat(diff.onlyInReplay())
        .anyMatch(
            c ->
                c.ruleId().orElse("").equals("boiler-overheat-cutoff")
                    && within(c, ExampleSiteDay.at(18, 10, 0), ExampleSiteDay.at(19, 0, 0)));
  }

  private static boolean within(CommandIntent c, Instant from, Instant to) {
    return !c.at().isBefore(from) && c.at().isBefore(to);
  }

  @Test
  void shippedWindow_isWhatTheScriptedDayRecords_withTheCurrentEngine() {
    RuleSet rules = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    ExampleSiteDay.Day day = ExampleSiteDay.run(rules);
    assertThat(day.commands()).containsExactlyElementsOf(SHIPPED.commands());
  }
}
