package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RunCommandTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aCauseNotLoggedYet_isPrintedOnOneLine_withItsId() {
    RunCommand.reportFailedStart(
        new RuntimeException(
            "Failed to start quarkus",
            new IllegalArgumentException(
                "Configuration validation failed:\n\tSRCFG00050: sentinel.foo does not map")),
        err);

    assertThat(printed())
        .isEqualTo(
            "SEN-019 the gateway did not start: Configuration validation failed: SRCFG00050:"
                + " sentinel.foo does not map"
                + System.lineSeparator());
  }

  @Test
  void aRefusalTheGatewayLoggedItself_isNotRepeated() {
    RunCommand.reportFailedStart(
        new RuntimeException(
            "Failed to start quarkus", new IllegalStateException("SEN-001 site x has 1 error(s)")),
        err);

    assertThat(printed()).isEmpty();
  }

  @Test
  void aCleanExit_printsNothing() {
    RunCommand.reportFailedStart(null, err);

    assertThat(printed()).isEmpty();
  }
}
