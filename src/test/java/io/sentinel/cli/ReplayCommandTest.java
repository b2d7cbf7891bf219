package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.testing.SiteCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
  @Test
  void shippedWindow_withTheExampleRules_noDifference_exit0() {
    CliRunner run = CliRunner.run("replay", "--log", "seeds/replay-window.ndjson");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("replayed 5803 observations from 2026-11-02T05:00:00Z to 2026-11-02T21:00:00Z")
        .containsPattern("(?m)^44 matched, 0 only in replay, 0 only in history$");
  }

  @Test
  void changedRule_listsEachDifferenceWithItsTime_exit1(@TempDir Path site) throws Exception {
    SiteCopy.of(site);
    SiteCopy.edit(site, "door.yaml", y -> y.replace("duration: 3s", "duration: 4s"));
    CliRunner run =
        CliRunner.run("replay", "--log", "seeds/replay-window.ndjson", "--rules", site.toString());
    assertThat(run.exit()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .contains(
            "only in history  2026-11-02T07:04:50.020Z  door.main.strike pulse 3s"
                + " (door-release-on-button, operator)",
            "only in replay   2026-11-02T07:04:50.020Z  door.main.strike pulse 4s"
                + " (door-release-on-button, operator)")
        .containsPattern("(?m)^39 matched, 5 only in replay, 5 only in history$");
  }

  @Test
  void unreadableWindow_namesFileLineAndField_exit2(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("w.ndjson");
    Files.writeString(
        log,
        "{\"type\":\"observation\",\"seq\":1,\"point\":\"boiler.ch1.demand\",\"value\":true,"
            + "\"quality\":\"live\",\"received_at\":\"2026-11-02T05:00:00Z\"}\n"
            + "{\"type\":\"observation\",\"seq\":\"two\",\"point\":\"boiler.ch1.demand\","
            + "\"value\":false,\"quality\":\"live\",\"received_at\":\"2026-11-02T05:00:01Z\"}\n");
    CliRunner run = CliRunner.run("replay", "--log", log.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.output()).contains(log + ":2: field 'seq' is not an integer");
  }

  @Test
  void neitherWindowNorLog_isAClearError_exit2() {
    CliRunner run = CliRunner.run("replay", "--from", "2026-11-02T05:00:00Z");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.output()).contains("give --from and --to (the database), or --log FILE.ndjson");
  }
}
