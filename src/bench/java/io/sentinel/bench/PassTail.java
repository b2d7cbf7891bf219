package io.sentinel.bench;

import io.sentinel.engine.PassResult;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * Where {@link EnginePassBenchmark}'s tail comes from (docs/benchmarks.md, session 7). It builds
 * the benchmark's site and warms it up, then times laps of passes and records each pass's work: the
 * work of the slow passes against the others, whether slow passes come in runs, and the median of
 * each lap over time. Last it times a fixed memory walk in laps (dependent loads over a random
 * cycle of 8 MB, nothing allocated): the machine's own variation, for comparison.
 *
 * <pre>
 * ./mvnw -B -q -Pbench test-compile exec:exec -Dbench.main=io.sentinel.bench.PassTail \
 *   -Dbench.jvm="-Xms2g -Xmx2g -XX:+AlwaysPreTouch" -Djmh.args="100-same 1000 40"
 * </pre>
 *
 * <p>Arguments: shape, derived points, laps (of 4,096 passes each).
 */
public final class PassTail {
  private static final int LAP = 4096;

  private PassTail() {}

  public static void main(String[] args) {
    EnginePassBenchmark.Site site = new EnginePassBenchmark.Site();
    site.shape = args.length > 0 ? args[0] : "100-same";
    site.derived = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int laps = args.length > 2 ? Integer.parseInt(args[2]) : 40;
    site.setUp();
    for (int i = 0; i < 300_000; i++) {
      site.pass();
    }
    int n = laps * LAP;
    long[] nanos = new long[n];
    int[][] work = new int[n][];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      PassResult r = site.pass();
      nanos[i] = System.nanoTime() - start;
      work[i] = new int[] {r.transitions().size(), r.claimChanges().size(), r.decisions().size()};
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    long p90 = sorted[n * 9 / 10];
    long p99 = sorted[n * 99 / 100];
    print(
        "passes %d: p50 %.1f, p90 %.1f, p99 %.1f us", n, sorted[n / 2] / 1e3, p90 / 1e3, p99 / 1e3);
    workBy(nanos, work, p90, p99);
    int slow = 0;
    int afterSlow = 0;
    for (int i = 1; i < n; i++) {
      if (nanos[i] >= p99) {
        slow++;
        afterSlow += nanos[i - 1] >= p90 ? 1 : 0;
      }
    }
    print(
        "passes at or above p99 that follow one at or above p90: %d of %d (10%% if independent)",
        afterSlow, slow);
    double[] lapMedians = new double[laps];
    for (int l = 0; l < laps; l++) {
      long[] lap = Arrays.copyOfRange(nanos, l * LAP, (l + 1) * LAP);
      Arrays.sort(lap);
      lapMedians[l] = lap[LAP / 2] / 1e3;
    }
    print("lap medians in order (us): %s", series(lapMedians));
    print("memory walk laps in order (ms): %s", series(walk(laps)));
  }

  private static void workBy(long[] nanos, int[][] work, long p90, long p99) {
    String[] names = {"below p90", "p90 to p99", "p99 and above"};
    double[][] sum = new double[3][3];
    int[] count = new int[3];
    for (int i = 0; i < nanos.length; i++) {
      int b = nanos[i] >= p99 ? 2 : nanos[i] >= p90 ? 1 : 0;
      count[b]++;
      for (int k = 0; k < 3; k++) {
        sum[b][k] += work[i][k];
      }
    }
    for (int b = 0; b < 3; b++) {
      print(
          "%s: %d passes, on average %.1f transitions, %.1f claim changes, %.1f decisions",
          names[b], count[b], sum[b][0] / count[b], sum[b][1] / count[b], sum[b][2] / count[b]);
    }
  }

  /** Laps of 2M dependent loads over a random cyclic permutation of 2M ints, in ms. */
  private static double[] walk(int laps) {
    int size = 2 << 20;
    int[] order = new int[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Random random = new Random(1);
    for (int i = size - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int[] next = new int[size];
    for (int i = 0; i < size; i++) {
      next[order[i]] = order[(i + 1) % size];
    }
    int p = 0;
    for (int s = 0; s < 20 * size; s++) {
      p = next[p];
    }
    double[] ms = new double[laps * 4];
    for (int l = 0; l < ms.length; l++) {
      long start = System.nanoTime();
      for (int s = 0; s < size; s++) {
        p = next[p];
      }
      ms[l] = (System.nanoTime() - start) / 1e6;
    }
    if (p == -1) {
      throw new AssertionError("unreachable: keeps the walk from being optimised away");
    }
    return ms;
  }

  private static String series(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    StringBuilder b = new StringBuilder();
    for (double v : values) {
      b.append(String.format(Locale.ROOT, " %.0f", v));
    }
    return String.format(
        Locale.ROOT,
        "min %.1f, median %.1f, max %.1f;%s",
        s[0],
        s[s.length / 2],
        s[s.length - 1],
        b);
  }

  private static void print(String format, Object... args) {
    System.out.println(String.format(Locale.ROOT, format, args));
  }
}
