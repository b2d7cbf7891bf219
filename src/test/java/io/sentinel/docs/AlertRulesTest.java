package io.sentinel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The Prometheus alert rules in docs/monitoring: checked by {@code promtool} (their syntax and
 * their unit tests, alerts.test.yml) where it is installed (Debian's {@code prometheus} package),
 * and always read as YAML here: every rule has an expression, a severity and the text an operator
 * is paged with, and the alerts issue 19 asks for are there.
 */
class AlertRulesTest {
  private static final Path DIR = Path.of("docs/monitoring");

  @Test
  void everyRuleHasAnExpressionASeverityAndItsText_andTheAskedForAlertsAreThere()
      throws IOException {
    Object root =
        new Load(LoadSettings.builder().build())
            .loadFromString(Files.readString(DIR.resolve("alerts.yml"), StandardCharsets.UTF_8));
    List<String> names = new ArrayList<>();
    for (Object g : list(map(root).get("groups"))) {
      for (Object r : list(map(g).get("rules"))) {
        Map<String, Object> rule = map(r);
        String name = (String) rule.get("alert");
        names.add(name);
        assertThat((String) rule.get("expr")).as(name + " expr").isNotBlank();
        assertThat(map(rule.get("labels")).get("severity"))
            .as(name + " severity")
            .isIn("warning", "critical");
        assertThat(map(rule.get("annotations"))).as(name).containsKeys("summary", "description");
      }
    }
    assertThat(names)
        .doesNotHaveDuplicates()
        .contains(
            "SentinelRuleSuspended",
            "SentinelInterlockUnenforced",
            "SentinelJournalAtBound",
            "SentinelIngestLagging",
            "SentinelBrokerDown",
            "SentinelDatabaseDown");
  }

  @Test
  void promtool_checksTheRulesAndRunsTheirUnitTests() throws Exception {
    Path promtool = Path.of("/usr/bin/promtool");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(promtool),
        "SKIPPED promtool: not installed (apt-get install -y prometheus); the rules were read as"
            + " YAML only");
    run(promtool.toString(), "check", "rules", "alerts.yml");
    run(promtool.toString(), "test", "rules", "alerts.test.yml");
  }

  private static void run(String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }

  private static List<?> list(Object o) {
    assertThat(o).isInstanceOf(List.class);
    return (List<?>) o;
  }
}
