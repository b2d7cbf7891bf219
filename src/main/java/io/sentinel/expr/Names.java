package io.sentinel.expr;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Helpers for messages: lists of names, and the names close to a misspelt one. */
final class Names {
  private Names() {}

  /** The candidates that {@code word} is probably a misspelling of, closest first. */
  static List<String> closest(String word, Collection<String> candidates) {
    record Scored(String name, int distance) {}
    List<Scored> scored = new ArrayList<>();
    String lower = word.toLowerCase(Locale.ROOT);
    int limit = word.length() <= 2 ? 0 : word.length() <= 5 ? 1 : 2;
    for (String c : candidates) {
      int d =
          c.toLowerCase(Locale.ROOT).equals(lower)
              ? 0
              : distance(lower, c.toLowerCase(Locale.ROOT));
      if (d <= limit) {
        scored.add(new Scored(c, d));
      }
    }
    return scored.stream()
        .sorted(Comparator.comparingInt(Scored::distance).thenComparing(Scored::name))
        .limit(3)
        .map(Scored::name)
        .toList();
  }

  /** " (did you mean x?)", or "" when nothing is close. */
  static String didYouMean(String word, Collection<String> candidates) {
    List<String> close = closest(word, candidates);
    return close.isEmpty() ? "" : " (did you mean " + orList(close) + "?)";
  }

  static String list(Collection<String> names) {
    return String.join(", ", names);
  }

  static String orList(List<String> names) {
    if (names.size() <= 1) {
      return String.join("", names);
    }
    return String.join(", ", names.subList(0, names.size() - 1))
        + " or "
        + names.get(names.size() - 1);
  }

  /** Levenshtein distance with adjacent transpositions. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          v = Math.min(v, d[i - 2][j - 2] + 1);
        }
        d[i][j] = v;
      }
    }
    return d[a.length()][b.length()];
  }
}
