package io.sentinel.derived;

import java.time.Instant;
import java.util.Arrays;

/**
 * Due instants for derived points (target >= 0) and watched points (-1 - point index), earliest
 * first, equal instants by target. A binary heap over one array of two longs per entry: the
 * instant's seconds, then its nanos and target packed so that comparing the two longs in turn is
 * comparing (seconds, nanos, target). An entry is no object of its own, and a step down the heap
 * reads one pair of longs, mostly on the same cache line as its sibling's.
 */
final class TimerHeap {
  private long[] keys = new long[512];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  /** Whether the earliest entry is due by {@code t}: not after it. */
  boolean dueBy(Instant t) {
    if (size == 0) {
      return false;
    }
    long sec = t.getEpochSecond();
    return keys[0] < sec || keys[0] == sec && nanoOf(keys[1]) <= t.getNano();
  }

  long peekSecond() {
    return keys[0];
  }

  int peekNano() {
    return nanoOf(keys[1]);
  }

  int peekTarget() {
    return targetOf(keys[1]);
  }

  void add(Instant due, int target) {
    if (2 * size == keys.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
    }
    long sec = due.getEpochSecond();
    long rest = pack(due.getNano(), target);
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(sec, rest, keys[2 * parent], keys[2 * parent + 1])) {
        break;
      }
      keys[2 * i] = keys[2 * parent];
      keys[2 * i + 1] = keys[2 * parent + 1];
      i = parent;
    }
    keys[2 * i] = sec;
    keys[2 * i + 1] = rest;
  }

  /** Removes the earliest entry. */
  void poll() {
    int last = --size;
    long sec = keys[2 * last];
    long rest = keys[2 * last + 1];
    int i = 0;
    while (true) {
      int c = 2 * i + 1;
      if (c >= last) {
        break;
      }
      if (c + 1 < last && before(keys[2 * c + 2], keys[2 * c + 3], keys[2 * c], keys[2 * c + 1])) {
        c++;
      }
      if (!before(keys[2 * c], keys[2 * c + 1], sec, rest)) {
        break;
      }
      keys[2 * i] = keys[2 * c];
      keys[2 * i + 1] = keys[2 * c + 1];
      i = c;
    }
    keys[2 * i] = sec;
    keys[2 * i + 1] = rest;
  }

  /**
   * Nanos (under 2^30) above, the target below with its sign bit flipped, so that the targets'
   * signed order is the low word's unsigned order and the whole long stays positive.
   */
  private static long pack(int nano, int target) {
    return (long) nano << 32 | (target ^ Integer.MIN_VALUE) & 0xFFFF_FFFFL;
  }

  private static int nanoOf(long rest) {
    return (int) (rest >>> 32);
  }

  private static int targetOf(long rest) {
    return (int) rest ^ Integer.MIN_VALUE;
  }

  private static boolean before(long s1, long r1, long s2, long r2) {
    return s1 != s2 ? s1 < s2 : r1 < r2;
  }
}
