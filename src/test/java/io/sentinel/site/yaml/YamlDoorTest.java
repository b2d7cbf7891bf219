package io.sentinel.site.yaml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 13 at the YAML door (rule files, revision documents, rules:validate): nesting, control
 * characters and size are refused with their code and line, in bounded time, never a
 * StackOverflowError.
 */
class YamlDoorTest {
  private static Problems parse(String text) {
    Problems p = new Problems();
    assertThat(new YamlFile("f.yaml", p).parseAll(text)).isEmpty();
    return p;
  }

  @ParameterizedTest
  @ValueSource(strings = {"flow", "block", "json", "mapping"})
  void twentyThousandLevels_areTooDeep_withTheLine(String form) {
    String text =
        switch (form) {
          case "flow" -> "a: " + "[".repeat(20_000) + "]".repeat(20_000);
          case "block" -> "- ".repeat(20_000) + "x\n";
          case "json" -> "{\"a\": ".repeat(20_000) + "1" + "}".repeat(20_000);
          default -> "{a: ".repeat(20_000) + "1" + "}".repeat(20_000);
        };
    long t0 = System.nanoTime();
    Problems p = parse(text);
    assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
    assertThat(p.sorted())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.code()).isEqualTo("YAML-100");
              assertThat(e.line()).isPositive();
              assertThat(e.message()).contains("too-deep").contains("64");
            });
  }

  @Test
  void sixtyFourLevels_areTaken() {
    Problems p = new Problems();
    assertThat(new YamlFile("f.yaml", p).parseAll("[".repeat(64) + "]".repeat(64))).hasSize(1);
    assertThat(p.sorted()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"a\\0b\"", "\"\\e[31mred\"", "\"\\x07\"", "\"\\x85\"", "\"\\ud800\""})
  void anEscapedControlCharacter_isRefusedWithItsLine(String scalar) {
    Problems p = parse("rules:\n  - id: " + scalar + "\n");
    assertThat(p.sorted())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.code()).isIn("YAML-101", "YAML-001");
              assertThat(e.line()).isIn(0, 2);
              assertThat(e.message()).doesNotContain("\u0000").doesNotContain("\u001b");
            });
  }

  @Test
  void tabsAndNewlines_inABlockScalar_areText() {
    Problems p = new Problems();
    assertThat(new YamlFile("f.yaml", p).parseAll("m: |\n  one\n  \ttwo\n")).hasSize(1);
    assertThat(p.sorted()).isEmpty();
  }

  @Test
  void anOversizedDocument_isRefusedUnread() {
    Problems p = parse("# " + "a".repeat(3 << 20));
    assertThat(p.sorted())
        .singleElement()
        .satisfies(e -> assertThat(e.code()).isEqualTo("YAML-102"));
  }

  @Test
  void doorCodes_nameTheirFlaw() {
    assertThat(YamlFile.doorFlaw("YAML-100")).contains(io.sentinel.door.Flaw.TOO_DEEP);
    assertThat(YamlFile.doorFlaw("YAML-101")).contains(io.sentinel.door.Flaw.CONTROL_CHARACTER);
    assertThat(YamlFile.doorFlaw("YAML-102")).contains(io.sentinel.door.Flaw.OVERSIZE);
    assertThat(YamlFile.doorFlaw("YAML-001")).isEmpty();
  }
}
