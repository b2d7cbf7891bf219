package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.MeasureUnit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/expressions.md is the rule author's reference: it must not drift from the code. */
class ExpressionDocTest {
  private static String doc() throws IOException {
    return Files.readString(Path.of("docs", "expressions.md"));
  }

  @Test
  void theDoc_listsEveryProblemCode() throws IOException {
    String doc = doc();
    for (ProblemCode code : ProblemCode.values()) {
      assertThat(doc).as("doc mentions %s", code.code()).contains("`" + code.code() + "`");
    }
  }

  @Test
  void theDoc_listsEveryUnitSymbol() throws IOException {
    String doc = doc();
    for (String symbol : MeasureUnit.symbols()) {
      assertThat(doc).as("doc lists unit %s", symbol).contains("`" + symbol + "`");
    }
  }
}
