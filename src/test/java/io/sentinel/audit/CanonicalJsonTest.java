package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The text written in one pass is the sorted tree's, byte for byte, whatever the value holds. */
class CanonicalJsonTest {

  private static void sameAsTheTree(Object value) {
    assertThat(CanonicalJson.textOf(value))
        .as("%s", value)
        .isEqualTo(CanonicalJson.tree(value).toString());
  }

  @Test
  void numbers_asTheTreeWritesThem() {
    List<Object> numbers =
        List.of(
            0,
            -7,
            Long.MAX_VALUE,
            (short) 3,
            21.0,
            -0.0,
            0.1,
            21.5,
            1e14,
            999_999_999_999_999.0,
            1e15,
            1e20,
            -1e300,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.MIN_VALUE,
            2.5f,
            3.0f,
            0.1f,
            Float.NaN,
            new BigDecimal("3.0"),
            new BigDecimal("2.50"),
            new BigInteger("123456789012345678901234567890"),
            (byte) 4);
    for (Object n : numbers) {
      sameAsTheTree(n);
      sameAsTheTree(Map.of("v", n));
    }
  }

  @Test
  void strings_escapedAsTheTreeEscapesThem() {
    for (String s :
        List.of(
            "", "plain", "quote \" and \\ back", "tab\tnew\nline\u0001", "é ü 温度 😀", "\ud800")) {
      sameAsTheTree(s);
      sameAsTheTree(Map.of(s, s));
    }
  }

  @Test
  void keysSorted_nullsKept_atEveryDepth() {
    Map<String, Object> inner = new HashMap<>();
    inner.put("zeta", null);
    inner.put("Alpha", List.of(1, "two", true));
    inner.put("alpha", Map.of("b", 2, "a", 1));
    Map<String, Object> outer = new LinkedHashMap<>();
    outer.put("z", inner);
    outer.put("a", List.of(inner, List.of()));
    outer.put("é", false);
    outer.put("10", 10);
    outer.put("9", 9);
    sameAsTheTree(outer);
    assertThat(CanonicalJson.textOf(outer))
        .startsWith("{\"10\":10,\"9\":9,\"a\":[{\"Alpha\":[1,\"two\",true],\"alpha\":{\"a\":1,");
  }

  @Test
  void whatIsNotMapListOrScalar_takesTheTreesWay() {
    Map<Object, Object> numberKeys = new TreeMap<>();
    numberKeys.put(2, "b");
    numberKeys.put(10, "a");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("numberKeys", numberKeys);
    m.put("set", new LinkedHashSet<>(List.of("b", "a")));
    m.put("array", new int[] {3, 1});
    m.put("char", 'x');
    m.put("enum", java.time.DayOfWeek.MONDAY);
    m.put("instantText", Instant.EPOCH.toString());
    sameAsTheTree(m);
  }

  /** Random nests of what audit entries hold, seeded so that a failure repeats. */
  @Test
  void randomValues_sameAsTheTree() {
    Random random = new Random(18);
    for (int i = 0; i < 2_000; i++) {
      sameAsTheTree(randomValue(random, 0));
    }
  }

  private static Object randomValue(Random r, int depth) {
    int kind = r.nextInt(depth > 3 ? 6 : 8);
    return switch (kind) {
      case 0 -> null;
      case 1 -> r.nextBoolean();
      case 2 -> r.nextInt(2000) - 1000;
      case 3 -> r.nextBoolean() ? r.nextLong() : (double) (r.nextInt(200) - 100);
      case 4 -> r.nextBoolean() ? r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20) : 0.5;
      case 5 -> randomString(r);
      case 6 -> {
        List<Object> l = new ArrayList<>();
        for (int n = r.nextInt(4); n > 0; n--) {
          l.add(randomValue(r, depth + 1));
        }
        yield l;
      }
      default -> {
        Map<String, Object> m = r.nextBoolean() ? new HashMap<>() : new LinkedHashMap<>();
        for (int n = r.nextInt(5); n > 0; n--) {
          m.put(randomString(r), randomValue(r, depth + 1));
        }
        yield m;
      }
    };
  }

  private static String randomString(Random r) {
    String alphabet = "abzAZ09_.-\"\\\n é温😀";
    StringBuilder sb = new StringBuilder();
    for (int n = r.nextInt(6); n > 0; n--) {
      sb.appendCodePoint(
          alphabet.codePointAt(
              alphabet.offsetByCodePoints(
                  0, r.nextInt(alphabet.codePointCount(0, alphabet.length())))));
    }
    return sb.toString();
  }
}
