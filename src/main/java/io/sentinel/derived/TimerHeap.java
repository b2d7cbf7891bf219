package io.sentinel.derived;

import java.time.Instant;
import java.util.Arrays;

/**
 * Due instants for derived points (target >= 0) and watched points (-1 - point index), earliest
 * first, equal instants by target. A binary heap over parallel arrays: the instant's seconds and
 * nanos are compared as primitives, and an entry is no object of its own.
 */
final class TimerHeap {
  private long[] seconds = new long[256];
  private int[] nanos = new int[256];
  private int[] targets = new int[256];
  private Instant[] dues = new Instant[256];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  /** Whether the earliest entry is due by {@code t}: not after it, read from the primitives. */
  boolean dueBy(Instant t) {
    if (size == 0) {
      return false;
    }
    long sec = t.getEpochSecond();
    return seconds[0] < sec || seconds[0] == sec && nanos[0] <= t.getNano();
  }

  Instant peekDue() {
    return dues[0];
  }

  int peekTarget() {
    return targets[0];
  }

  void add(Instant due, int target) {
    if (size == dues.length) {
      seconds = Arrays.copyOf(seconds, size * 2);
      nanos = Arrays.copyOf(nanos, size * 2);
      targets = Arrays.copyOf(targets, size * 2);
      dues = Arrays.copyOf(dues, size * 2);
    }
    long sec = due.getEpochSecond();
    int nano = due.getNano();
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(sec, nano, target, parent)) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    set(i, sec, nano, target, due);
  }

  /** Removes the earliest entry. */
  void poll() {
    int last = --size;
    long sec = seconds[last];
    int nano = nanos[last];
    int target = targets[last];
    Instant due = dues[last];
    dues[last] = null;
    if (last == 0) {
      return;
    }
    int i = 0;
    while (true) {
      int c = 2 * i + 1;
      if (c >= last) {
        break;
      }
      if (c + 1 < last && before(seconds[c + 1], nanos[c + 1], targets[c + 1], c)) {
        c++;
      }
      if (!before(seconds[c], nanos[c], targets[c], sec, nano, target)) {
        break;
      }
      move(c, i);
      i = c;
    }
    set(i, sec, nano, target, due);
  }

  private boolean before(long sec, int nano, int target, int k) {
    return before(sec, nano, target, seconds[k], nanos[k], targets[k]);
  }

  private static boolean before(long s1, int n1, int t1, long s2, int n2, int t2) {
    return s1 != s2 ? s1 < s2 : n1 != n2 ? n1 < n2 : t1 < t2;
  }

  private void move(int from, int to) {
    set(to, seconds[from], nanos[from], targets[from], dues[from]);
  }

  private void set(int k, long sec, int nano, int target, Instant due) {
    seconds[k] = sec;
    nanos[k] = nano;
    targets[k] = target;
    dues[k] = due;
  }
}
