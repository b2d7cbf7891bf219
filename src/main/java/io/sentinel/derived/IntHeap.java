package io.sentinel.derived;

import java.util.Arrays;

/** A min-heap of derived point indexes (topological order), without boxing. */
final class IntHeap {
  private int[] heap = new int[64];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  void add(int v) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    int i = size++;
    while (i > 0 && heap[(i - 1) >>> 1] > v) {
      heap[i] = heap[(i - 1) >>> 1];
      i = (i - 1) >>> 1;
    }
    heap[i] = v;
  }

  int poll() {
    int top = heap[0];
    int v = heap[--size];
    int i = 0;
    while (true) {
      int c = 2 * i + 1;
      if (c >= size) {
        break;
      }
      if (c + 1 < size && heap[c + 1] < heap[c]) {
        c++;
      }
      if (heap[c] >= v) {
        break;
      }
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = v;
    return top;
  }
}
