package io.sentinel.bench;

import io.sentinel.arbitration.Decision;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.StartMode;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.site.Site;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The greenhouse transition stream of the shared bench fed in-process to {@link Engine#pass}, in
 * batches of B transitions, each pass timed (docs/benchmarks.md, "The greenhouse stream"). The
 * stream, the site and the checks are those of {@code shared/bench/drools-core}, so the two can be
 * quoted together: the settle sweeps, then {@code --warmup} unmeasured and {@code --transitions}
 * measured transitions. Each pass advances the engine's clock by {@code --pass-ms}; every sample of
 * a pass carries that instant (one step per pass), as in {@code shared/bench/sentinel-core}.
 *
 * <p>Checked in every run, against an oracle that decides each zone from the values alone (value
 * &gt; 28): after every pass, each zone the pass touched has the vent command the oracle says
 * (mismatched passes); in the warmup and measured phases the commands equal the flips; at the end,
 * the claimed zones' CRC-32 equals the oracle's (the figure drools-core prints for the same
 * stream). The process exits with 1 when a check fails. Not part of the product.
 *
 * <p>The point ids of the samples are the registry's own {@code String}s, as the gateway's ingest
 * decoder hands them over ({@code spec.id()}).
 */
public final class GreenhouseBench {
  private int zones = 1000;
  private int batch = 100;
  private int flipEvery = 50;
  private int seed = 1;
  private int derived;

  /**
   * As the issue's own runs: the pass reaches its steady state only after about 5M transitions, as
   * C2 compiles it again once the settle sweeps' profiles give way to the steady stream.
   */
  private long warmup = 20_000_000;

  private long transitions = 5_000_000;
  private long passMs = 10;
  private String json;
  private Path writeSite;

  /**
   * Calls System.gc() right before and right after the measured phase, so that an instruction
   * counter can cut that phase out of the run exactly: {@code valgrind --tool=callgrind
   * --dump-before=JVM_GC} writes one part per call (docs/benchmarks.md).
   */
  private boolean markMeasured;

  /** Samples without the decoder's position hint (Sample.position): the engine hashes each id. */
  private boolean noPositions;

  /** Counters of one phase. */
  private static final class Phase {
    final String name;
    long transitions,
        passes,
        flips,
        commands,
        mismatchedPasses,
        passNanos,
        allocated,
        gcCount,
        gcMs;
    long cpuNanos;
    long[] times;
    long[] cpuTimes;
    int timed;

    Phase(String name) {
      this.name = name;
    }
  }

  private Engine engine;
  private GreenhouseStream stream;
  private String[] temp;
  private int[] tempPosition;
  private final Map<String, Integer> ventZone = new HashMap<>();
  private boolean[] oracle;
  private boolean[] commanded;
  private int[] batchZones;
  private Instant now;
  private long pass;

  public static void main(String[] args) throws Exception {
    GreenhouseBench b = new GreenhouseBench();
    b.parse(args);
    if (b.writeSite != null) {
      GreenhouseSite.write(b.zones, b.derived, b.writeSite);
      return;
    }
    System.exit(b.run() ? 0 : 1);
  }

  private void parse(String[] a) {
    for (int i = 0; i < a.length; i++) {
      switch (a[i]) {
        case "--zones" -> zones = Integer.parseInt(a[++i]);
        case "--batch" -> batch = Integer.parseInt(a[++i]);
        case "--flip-every" -> flipEvery = Integer.parseInt(a[++i]);
        case "--seed" -> seed = Integer.parseInt(a[++i]);
        case "--derived" -> derived = Integer.parseInt(a[++i]);
        case "--warmup" -> warmup = Long.parseLong(a[++i].replace("_", ""));
        case "--transitions" -> transitions = Long.parseLong(a[++i].replace("_", ""));
        case "--pass-ms" -> passMs = Long.parseLong(a[++i]);
        case "--json" -> json = a[++i];
        case "--write-site" -> writeSite = Path.of(a[++i]);
        case "--mark-measured" -> markMeasured = true;
        case "--no-positions" -> noPositions = true;
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + a[i]
                    + " (--zones --batch --flip-every --seed --derived --warmup --transitions"
                    + " --pass-ms --json --write-site --mark-measured --no-positions)");
      }
    }
  }

  private boolean run() throws Exception {
    long t0 = System.nanoTime();
    Path dir = Files.createTempDirectory("greenhouse-");
    GreenhouseSite.write(zones, derived, dir.resolve("bench-" + zones));
    Site.Loaded loaded = Site.load(dir.resolve("bench-" + zones));
    if (loaded.site().isEmpty()) {
      throw new IllegalStateException("the bench site does not load: " + loaded.problems());
    }
    var ruleSet = loaded.site().get().ruleSet();
    now = Instant.parse("2026-01-05T06:00:00Z");
    engine = new Engine(ruleSet, now, StartMode.COLD);
    double buildS = (System.nanoTime() - t0) / 1e9;
    temp = new String[zones + 1];
    tempPosition = new int[zones + 1];
    List<PointSpec> inOrder = ruleSet.registry().inOrder();
    for (int i = 1; i <= zones; i++) {
      PointSpec in = ruleSet.registry().find("bench.z" + i + ".temp").orElseThrow();
      temp[i] = in.id();
      tempPosition[i] = noPositions ? -1 : inOrder.indexOf(in);
      ventZone.put("bench.z" + i + ".vent", i);
    }
    oracle = new boolean[zones + 1];
    commanded = new boolean[zones + 1];
    batchZones = new int[batch];
    stream = new GreenhouseStream(zones, flipEvery, seed);
    System.out.printf(
        Locale.ROOT,
        "greenhouse-bench: Sentinel engine on Java %s, %d zones (%d rules, %d derived points),"
            + " batch %d, flip every %d, seed %d, pass %d ms%n",
        System.getProperty("java.version"),
        zones,
        ruleSet.rules().size(),
        ruleSet.derived().ordered().size(),
        batch,
        flipEvery,
        seed,
        passMs);

    Phase settle = phase("settle", stream.settleLength(), false);
    boolean settledOk = true;
    for (int i = 1; i <= zones; i++) {
      settledOk &= commanded[i] == (i % 2 == 1);
    }
    long heapSettled = heapAfterGc();
    Phase warm = phase("warmup", warmup, false);
    Phase meas = phase("measured", transitions, true);
    long heapEnd = heapAfterGc();

    String crcCommanded = crc(commanded);
    String crcOracle = crc(oracle);
    int claims = 0;
    for (int i = 1; i <= zones; i++) {
      claims += commanded[i] ? 1 : 0;
    }
    boolean countsOk = meas.commands == meas.flips && warm.commands == warm.flips;
    boolean passesOk = settle.mismatchedPasses + warm.mismatchedPasses + meas.mismatchedPasses == 0;
    boolean ok = countsOk && passesOk && settledOk && crcCommanded.equals(crcOracle);

    long[] t = Arrays.copyOf(meas.times, meas.timed);
    Arrays.sort(t);
    long[] c = Arrays.copyOf(meas.cpuTimes, meas.timed);
    Arrays.sort(c);
    double cpuRate = meas.transitions / (meas.cpuNanos / 1e9);
    double rate = meas.transitions / (meas.passNanos / 1e9);
    double bytesPerPass = meas.allocated / (double) meas.passes;
    String load = Files.readString(Path.of("/proc/loadavg")).trim();
    System.out.printf(
        Locale.ROOT,
        "  rate      %.0f transitions/s in passes (%d passes of %d)%n"
            + "  pass      p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f us%n"
            + "  cpu       %.0f transitions per CPU second of the engine's thread; pass CPU p50 %.1f"
            + "  p99 %.1f  p99.9 %.1f us%n"
            + "  alloc     %.0f bytes per pass (%.1f per transition); GC %d (%d ms) in the measured"
            + " phase%n"
            + "  heap      %.1f MB after GC at the end, %.1f MB after the settle sweeps; build %.1f"
            + " s%n"
            + "  claims    %d at the end, crc32 %s (oracle %s)%n"
            + "  check     %s: commands = flips: warmup %d = %d, measured %d = %d; mismatched"
            + " passes %d; settled %s%n"
            + "  load      %s%n",
        rate,
        meas.passes,
        batch,
        pct(t, 50),
        pct(t, 90),
        pct(t, 99),
        pct(t, 99.9),
        t[t.length - 1] / 1e3,
        meas.passNanos / 1e3 / meas.passes,
        cpuRate,
        pct(c, 50),
        pct(c, 99),
        pct(c, 99.9),
        bytesPerPass,
        bytesPerPass / batch,
        meas.gcCount,
        meas.gcMs,
        heapEnd / 1048576.0,
        heapSettled / 1048576.0,
        buildS,
        claims,
        crcCommanded,
        crcOracle,
        ok ? "OK" : "FAILED",
        warm.commands,
        warm.flips,
        meas.commands,
        meas.flips,
        settle.mismatchedPasses + warm.mismatchedPasses + meas.mismatchedPasses,
        settledOk,
        load);
    String line =
        String.format(
            Locale.ROOT,
            "{\"system\": \"sentinel\", \"zones\": %d, \"derived\": %d, \"batch\": %d,"
                + " \"warmup\": %d, \"transitions\": %d, \"transitions_per_s\": %.0f,"
                + " \"pass_us_p50\": %.1f, \"pass_us_p99\": %.1f, \"pass_us_p999\": %.1f,"
                + " \"cpu_transitions_per_s\": %.0f, \"cpu_us_p50\": %.1f, \"cpu_us_p99\": %.1f,"
                + " \"bytes_per_pass\": %.0f, \"heap_after_gc_mb\": %.1f, \"claims_crc32\":"
                + " \"%s\", \"loadavg\": \"%s\", \"ok\": %s}",
            zones,
            derived,
            batch,
            warmup,
            transitions,
            rate,
            pct(t, 50),
            pct(t, 99),
            pct(t, 99.9),
            cpuRate,
            pct(c, 50),
            pct(c, 99),
            bytesPerPass,
            heapEnd / 1048576.0,
            crcCommanded,
            load,
            ok);
    System.out.println(line);
    if (json != null) {
      Files.writeString(Path.of(json), line + "\n");
    }
    return ok;
  }

  /** Feeds {@code count} transitions in passes of at most B; times each pass if {@code timed}. */
  private Phase phase(String name, long count, boolean timed) {
    Phase p = new Phase(name);
    p.times = new long[timed ? (int) (count / batch) + 2 : 0];
    p.cpuTimes = new long[p.times.length];
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    if (timed && markMeasured) {
      System.gc();
    }
    long gc0 = gcCount(), gcMs0 = gcMs(), w0 = System.nanoTime();
    for (long remaining = count; remaining > 0; ) {
      int n = (int) Math.min(batch, remaining);
      remaining -= n;
      now = now.plusMillis(passMs);
      pass++;
      List<Sample> samples = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        int z = stream.next();
        batchZones[j] = z;
        double v = stream.value();
        oracle[z] = v > 28;
        if (stream.flip) {
          p.flips++;
        }
        samples.add(new Sample(temp[z], Value.of(v), Quality.LIVE, now, tempPosition[z]));
      }
      long a0 = timed ? threads.getCurrentThreadAllocatedBytes() : 0;
      long c0 = timed ? threads.getCurrentThreadCpuTime() : 0;
      long s = System.nanoTime();
      PassResult r = engine.pass(now, samples, false);
      long e = System.nanoTime() - s;
      if (timed) {
        long c = threads.getCurrentThreadCpuTime() - c0;
        p.allocated += threads.getCurrentThreadAllocatedBytes() - a0;
        p.cpuNanos += c;
        p.cpuTimes[p.timed] = c;
        p.times[p.timed++] = e;
      }
      p.passNanos += e;
      for (Decision d : r.decisions()) {
        Integer z = ventZone.get(d.pointId());
        boolean on = d.value().map(Value.TRUE::equals).orElse(false);
        if (z != null && on != commanded[z]) {
          commanded[z] = on;
          p.commands++;
        }
      }
      boolean mismatch = false;
      for (int j = 0; j < n; j++) {
        mismatch |= commanded[batchZones[j]] != oracle[batchZones[j]];
      }
      if (mismatch) {
        p.mismatchedPasses++;
      }
      p.transitions += n;
      p.passes++;
    }
    if (timed && markMeasured) {
      System.gc();
    }
    p.gcCount = gcCount() - gc0;
    p.gcMs = gcMs() - gcMs0;
    System.out.printf(
        Locale.ROOT,
        "  %-9s %d transitions in %d passes, %.1f s; flips %d, commands %d, mismatched passes %d;"
            + " GC %d (%d ms)%n",
        name,
        p.transitions,
        p.passes,
        (System.nanoTime() - w0) / 1e9,
        p.flips,
        p.commands,
        p.mismatchedPasses,
        p.gcCount,
        p.gcMs);
    return p;
  }

  private static double pct(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (sorted.length * q / 100))] / 1e3;
  }

  /** CRC-32 of the ascending zone numbers set in {@code b}, joined by ',': as drools-core's. */
  private static String crc(boolean[] b) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i < b.length; i++) {
      if (b[i]) {
        sb.append(sb.length() > 0 ? "," : "").append(i);
      }
    }
    CRC32 c = new CRC32();
    c.update(sb.toString().getBytes(StandardCharsets.US_ASCII));
    return String.format(Locale.ROOT, "%08x", c.getValue());
  }

  private static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long gcCount() {
    long n = 0;
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, b.getCollectionCount());
    }
    return n;
  }

  private static long gcMs() {
    long n = 0;
    for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, b.getCollectionTime());
    }
    return n;
  }
}
