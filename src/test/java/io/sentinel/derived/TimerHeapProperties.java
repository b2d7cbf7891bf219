package io.sentinel.derived;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The timer heap, whose entries are packed into longs, hands its entries out in the order of
 * (instant, target) that a queue of the instants themselves gives: instants before the epoch and
 * far past it, every nano, the watchdog's negative targets and the derived points' positive ones.
 */
class TimerHeapProperties {
  /** One operation: an add of (second, nano, target), or a poll when {@code poll}. */
  record Op(boolean poll, long second, int nano, int target) {}

  record Entry(Instant due, int target) {}

  private static final Comparator<Entry> ORDER =
      Comparator.comparing(Entry::due).thenComparingInt(Entry::target);

  @Property(tries = 500)
  void entriesLeaveInInstantThenTargetOrder(@ForAll("ops") List<Op> ops) {
    TimerHeap heap = new TimerHeap();
    PriorityQueue<Entry> oracle = new PriorityQueue<>(ORDER);
    List<Entry> out = new ArrayList<>();
    List<Entry> expected = new ArrayList<>();
    for (Op op : ops) {
      if (op.poll()) {
        if (!oracle.isEmpty()) {
          expected.add(oracle.poll());
          out.add(head(heap));
          heap.poll();
        }
      } else {
        Instant due = Instant.ofEpochSecond(op.second(), op.nano());
        heap.add(due, op.target());
        oracle.add(new Entry(due, op.target()));
      }
      assertThat(heap.isEmpty()).isEqualTo(oracle.isEmpty());
      if (!oracle.isEmpty()) {
        Entry first = oracle.peek();
        assertThat(head(heap)).isEqualTo(first);
        assertThat(heap.dueBy(first.due())).isTrue();
        assertThat(heap.dueBy(first.due().minusNanos(1))).isFalse();
      }
    }
    while (!oracle.isEmpty()) {
      expected.add(oracle.poll());
      out.add(head(heap));
      heap.poll();
    }
    assertThat(out).isEqualTo(expected);
  }

  private static Entry head(TimerHeap heap) {
    return new Entry(Instant.ofEpochSecond(heap.peekSecond(), heap.peekNano()), heap.peekTarget());
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    // Few distinct seconds and nanos, so that ties on the instant (ordered by target) are common.
    Arbitrary<Long> seconds =
        Arbitraries.oneOf(
            Arbitraries.longs().between(-3, 3),
            Arbitraries.of(-62_135_596_800L, 253_402_300_799L, 1_767_225_600L));
    Arbitrary<Integer> nanos = Arbitraries.of(0, 1, 500_000_000, 999_999_999);
    Arbitrary<Integer> targets =
        Arbitraries.oneOf(
            Arbitraries.integers().between(-4, 4),
            Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, -1 - 10_000));
    Arbitrary<Op> add =
        Combinators.combine(seconds, nanos, targets).as((s, n, t) -> new Op(false, s, n, t));
    Arbitrary<Op> poll = Arbitraries.just(new Op(true, 0, 0, 0));
    // Four adds to a poll: the heap outgrows its first array in the longer lists.
    return Arbitraries.frequencyOf(Tuple.of(4, add), Tuple.of(1, poll)).list().ofMaxSize(700);
  }
}
