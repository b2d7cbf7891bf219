package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 13's deep nesting, inside one YAML scalar: a {@code when} of 20,000 brackets, prefix
 * operators or {@code and}s is refused before the recursive parser sees it (EXPR-003 naming the
 * column), in bounded time, on a thread with a small stack; what a real condition holds, up to the
 * limits, compiles there.
 */
class ExpressionBoundsTest {
  private final Rig rig = Rig.standard();

  /** Compiled on a thread of 256 KiB of stack, a quarter of the JVM's default. */
  private Compiled compileOnASmallStack(String source) throws Exception {
    CompletableFuture<Compiled> out = new CompletableFuture<>();
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                out.complete(rig.compile(source));
              } catch (Throwable e) {
                out.completeExceptionally(e);
              }
            },
            "small-stack",
            256 * 1024);
    t.start();
    t.join(10_000);
    return out.getNow(null);
  }

  @ParameterizedTest
  @ValueSource(strings = {"parens", "brackets", "not", "minus", "and", "plus"})
  void twentyThousandLevels_areRefusedBeforeParsing(String form) throws Exception {
    int n = 20_000;
    String source =
        switch (form) {
          case "parens" -> "(".repeat(n) + "demand.value" + ")".repeat(n);
          case "brackets" -> "mode.value in " + "[".repeat(n) + "heating" + "]".repeat(n);
          case "not" -> "not ".repeat(n) + "demand.value";
          case "minus" -> "flow.value > " + "-".repeat(n) + "1";
          case "and" -> "demand.value" + " and demand.value".repeat(n);
          default -> "flow.value > 1" + " + 1".repeat(n);
        };
    long t0 = System.nanoTime();
    Compiled c = compileOnASmallStack(source);
    assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
    assertThat(c).as(form).isNotNull();
    assertThat(c.condition()).isEmpty();
    assertThat(c.problems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.code()).isEqualTo("EXPR-003");
              assertThat(p.message()).containsAnyOf("nested deeper than 64", "at most 500");
              assertThat(p.column()).isPositive();
            });
  }

  @ParameterizedTest
  @ValueSource(strings = {"parens", "and", "plus"})
  void upToTheLimits_compiles_onASmallStack(String form) throws Exception {
    String source =
        switch (form) {
          case "parens" -> "(".repeat(60) + "demand.value" + ")".repeat(60);
          // 500 tokens with the end: the longest expression taken, a tree 124 levels deep.
          case "and" -> "demand.value" + " and demand.value".repeat(124);
          // 500 tokens: a sum 247 levels deep, the deepest tree the bounds let through.
          default -> "flow.value > 1" + " + 1".repeat(247);
        };
    Compiled c = compileOnASmallStack(source);
    assertThat(c).isNotNull();
    assertThat(c.problems()).isEmpty();
    assertThat(c.condition()).isPresent();
  }
}
