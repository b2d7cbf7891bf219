package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.ControlEvent;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WarmupSummaryTest {
  private static List<ControlEvent> leaving(int n) {
    return IntStream.rangeClosed(1, n)
        .mapToObj(
            i ->
                new ControlEvent(
                    "warmup-left",
                    "rule-" + i,
                    i % 5 == 0 ? "deadline of PT1M reached" : "all inputs live",
                    Instant.EPOCH))
        .toList();
  }

  @Test
  void aFewRules_aLinePerRule_asEveryOtherEvent() {
    assertThat(WarmupSummary.lines(leaving(3)))
        .containsExactly(
            "event warmup-left rule-1: all inputs live",
            "event warmup-left rule-2: all inputs live",
            "event warmup-left rule-3: all inputs live");
  }

  @Test
  void aLargeSite_aLinePerHundredRules_countedByHowTheyLeft() {
    List<String> lines = WarmupSummary.lines(leaving(250));
    assertThat(lines)
        .containsExactly(
            "SEN-018 100 rules left warmup (rule-1 ... rule-100, 1-100 of 250 in this pass): all"
                + " inputs live 80, deadline of PT1M reached 20",
            "SEN-018 100 rules left warmup (rule-101 ... rule-200, 101-200 of 250 in this pass):"
                + " all inputs live 80, deadline of PT1M reached 20",
            "SEN-018 50 rules left warmup (rule-201 ... rule-250, 201-250 of 250 in this pass): all"
                + " inputs live 40, deadline of PT1M reached 10");
  }

  @Test
  void theDashboardLine_namesDashboardApiAndHealth() {
    assertThat(ConsoleAddress.line("0.0.0.0", 8080))
        .isEqualTo(
            "SEN-017 dashboard http://localhost:8080/, API http://localhost:8080/api/v1/, health"
                + " http://localhost:8080/q/health (listening on every interface)");
    assertThat(ConsoleAddress.line("192.168.1.20", 9000))
        .startsWith(
            "SEN-017 dashboard http://192.168.1.20:9000/, API http://192.168.1.20:9000/api/v1/");
  }
}
