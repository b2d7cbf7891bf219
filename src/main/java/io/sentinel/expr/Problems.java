package io.sentinel.expr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects the problems of one compilation, turning source offsets into line and column. */
final class Problems {
  private record Entry(int offset, int sequence, ExprProblem problem) {}

  private final String source;
  private final List<Entry> entries = new ArrayList<>();

  Problems(String source) {
    this.source = source;
  }

  void add(ProblemCode code, int offset, String message) {
    int[] at = position(offset);
    ExprProblem problem = new ExprProblem(code.code(), at[0], at[1], message);
    entries.add(new Entry(offset, entries.size(), problem));
  }

  /** The 1-based line and column of an offset; a line ends with \n, \r\n or \r. */
  int[] position(int offset) {
    int line = 1;
    int lineStart = 0;
    int end = Math.min(offset, source.length());
    for (int i = 0; i < end; i++) {
      char c = source.charAt(i);
      if (c == '\n' || (c == '\r' && (i + 1 >= source.length() || source.charAt(i + 1) != '\n'))) {
        line++;
        lineStart = i + 1;
      }
    }
    return new int[] {line, end - lineStart + 1};
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The problems in source order. */
  List<ExprProblem> sorted() {
    return entries.stream()
        .sorted(Comparator.comparingInt(Entry::offset).thenComparingInt(Entry::sequence))
        .map(Entry::problem)
        .toList();
  }
}
