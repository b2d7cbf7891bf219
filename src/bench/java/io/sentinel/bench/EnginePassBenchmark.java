package io.sentinel.bench;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.engine.StartMode;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.Problem;
import io.sentinel.rule.Problems;
import io.sentinel.rule.RegistryLoader;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleLoader;
import io.sentinel.rule.RuleSet;
import io.sentinel.rule.RuleSetChecks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one engine pass on a site of 10,000 points and 1,000 rules, in steady state.
 *
 * <p>The site is written as YAML and loaded through {@link RegistryLoader}, {@link RuleLoader} and
 * {@link RuleSetChecks}, so the engine runs real, validated rules; setup fails on any problem, even
 * a warning. Per zone (200 zones): 40 number inputs in degC with a 0.5 deadband, 5 bool inputs, 3
 * bool and 2 number (valve, %) outputs. Per zone 5 rules of 2 to 3 inputs and one claim each; every
 * tenth rule is an interlock (80% fail_safe) that claims a point another rule also claims, so
 * arbitration has contenders. Triggers: 78% transition, 15% edge, 7% quality; bands: 100 interlock,
 * 50 safety, 110 operator, 110 orchestration, 520 automation, 110 ambient; 140 claims with
 * expires_in. The inputs that rules read are watched (stale_after, unavailable_after), so the
 * staleness watchdog of the derived layer runs on every sample, as on a real site; the stream
 * samples them often enough never to age. The other inputs are monitoring points that report once.
 *
 * <p>A measured op is one {@code pass}: {@code now} advances by 1 ms, and the samples of the pass
 * are one of (the parameter {@code shape}):
 *
 * <ul>
 *   <li>{@code 100-same}: 100 samples of 100 distinct inputs, all stamped at {@code now}: one step;
 *   <li>{@code 100-spread}: the same 100 samples, stamped 10 µs apart over the millisecond, as a
 *       gateway that stamps each sample on receipt would: 100 steps in one pass;
 *   <li>{@code 1}: one sample per pass: the latency of a single transition.
 * </ul>
 *
 * <p>Which points and values: a seeded-random ring, precomputed in setup, of batches of distinct
 * inputs drawn from the inputs that some rule reads (2,274 of the 9,000 inputs: a transition of an
 * input no rule reads costs only the table update). Each number moves by 1 to 16 degC (well past
 * the 0.5 deadband) around the threshold that the rules reading it use, crossing it 60% of the
 * time; each bool flips. So every sample is a real transition and claims keep changing. The ring is
 * cyclic without a seam: each point appears an even number of times in it and its last value
 * differs from its first one as much as any two neighbours do, so it can be replayed forever.
 *
 * <p>What is created in the measured method, and why: {@link Sample} is an immutable record that
 * carries its instant, and the instant must grow with every pass, so a precomputed ring of samples
 * would run out of valid instants after one lap (and one long enough for a whole iteration would
 * not fit in memory at these rates). The point ids and the {@link Value}s are precomputed; the op
 * allocates only the {@code Instant}(s) and the 100 {@code Sample} records plus the array that
 * holds them, which is what an ingest adapter does anyway. {@link #buildSamplesOnly} measures
 * exactly that part, so it can be told apart (3.7 KB and under a microsecond per pass).
 *
 * <p>JVM: a fixed, pre-touched 2 GB heap. Without it the first passes that run in newly committed
 * eden regions pay the kernel's first-touch page faults: in a first run the pass time jumped from
 * about 40 µs to 160 µs for seconds at a time, each time the heap grew, and G1's young pauses took
 * 20 to 90 ms instead of 3 to 6 ms. A gateway runs with a fixed heap for the same reason.
 *
 * <p>Limits: the stream is time-compressed. With 100 samples per millisecond over about 2,300
 * inputs, each input changes about every 23 ms of engine time (44 Hz), and a rule with three
 * inputs, or a point claimed by two rules, changes its claim up to a few hundred times a second.
 * The default loop and flap limits (600 evaluations per rule in 10 s, 30 claim changes per point in
 * 1 min) would then suspend rules and freeze points within the first second, and the benchmark
 * would measure a site that has stopped deciding (a first version with windows 100 times shorter
 * still froze some points). The engine gets the default counts with both windows 1,000 times
 * shorter (10 ms, 60 ms): the bookkeeping is the same (every evaluation goes into the rule's ring,
 * every claim change into the point's flap list), nothing trips. Setup and teardown fail if a rule
 * was suspended or a point flapped all the same.
 */
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EnginePassBenchmark {
  static final Instant START = Instant.parse("2025-01-06T06:00:00Z");
  static final long PASS_NANOS = 1_000_000L;

  static final EngineLimits SCALED_LIMITS =
      new EngineLimits(
          EngineLimits.DEFAULT.evaluationsPerRule(),
          EngineLimits.DEFAULT.evaluationWindow().dividedBy(1000),
          EngineLimits.DEFAULT.claimChangesPerPoint(),
          EngineLimits.DEFAULT.claimWindow().dividedBy(1000));

  /** The engine, warmed up, and the stream of samples it is fed. */
  @State(Scope.Benchmark)
  public static class Site {
    @Param({"100-same", "100-spread", "1"})
    public String shape;

    private Engine engine;
    private Stream stream;
    private Instant now;

    /** Self points (rule suspended, point flapping) seen: the limits tripped if any. */
    private long selfPoints;

    @Setup(Level.Trial)
    public void setUp() {
      SiteModel model = SiteModel.build();
      RuleSet ruleSet = model.load();
      int batch = shape.startsWith("100") ? 100 : 1;
      stream = Stream.build(model, batch, batch == 100 ? 2048 : 100_000, 20250106L);
      engine = new Engine(ruleSet, START, StartMode.COLD, SCALED_LIMITS);
      now = START;

      // Cold start, then every input live once (the prime values are where the ring leaves each
      // point, so the ring follows on seamlessly): every rule leaves warmup.
      now = now.plusNanos(PASS_NANOS);
      List<Sample> prime = new ArrayList<>();
      for (int p = 0; p < model.inputIds.length; p++) {
        prime.add(Sample.live(model.inputIds[p], stream.primeValue(p), now));
      }
      engine.pass(now, prime, false);
      List<RuleStatus> notActive =
          engine.statuses().stream().filter(s -> s.state() != RuleState.ACTIVE).toList();
      if (!notActive.isEmpty()) {
        throw new IllegalStateException(
            notActive.size() + " rules not active after priming, e.g. " + notActive.get(0));
      }

      // One lap of the ring (and past the longest expires_in), so that timers, claim tables and
      // the flap lists are at their steady size before JMH's own warmup begins; it also says what
      // a pass does on average.
      long passes = Math.max(stream.batches(), 5_000);
      long transitions = 0;
      long claimChanges = 0;
      long decisions = 0;
      Map<String, Integer> events = new TreeMap<>();
      for (long i = 0; i < passes; i++) {
        PassResult r = pass();
        transitions += r.transitions().size();
        claimChanges += r.claimChanges().size();
        decisions += r.decisions().size();
        for (ControlEvent e : r.events()) {
          events.merge(e.kind(), 1, Integer::sum);
        }
      }
      Map<String, Integer> mix = new TreeMap<>();
      for (Rule rule : ruleSet.rules()) {
        mix.merge(rule.trigger().getClass().getSimpleName(), 1, Integer::sum);
        mix.merge(rule.band().wireName(), 1, Integer::sum);
        mix.merge(rule.inputs().size() + "-inputs", 1, Integer::sum);
        if (rule.isFailSafe()) {
          mix.merge("fail_safe", 1, Integer::sum);
        }
        if (rule.claims().get(0).expiresIn().isPresent()) {
          mix.merge("expires_in", 1, Integer::sum);
        }
      }
      System.out.printf(Locale.ROOT, "%n[site] rule mix: %s", mix);
      System.out.printf(
          Locale.ROOT,
          "%n[site] %d points, %d rules, %d inputs read by rules; shape %s: per pass %.2f"
              + " transitions, %.2f claim changes, %.2f decisions; events over %d passes: %s%n",
          model.pointCount,
          ruleSet.rules().size(),
          model.hotInputs.length,
          shape,
          transitions / (double) passes,
          claimChanges / (double) passes,
          decisions / (double) passes,
          passes,
          events);
      if (transitions != passes * batch) {
        throw new IllegalStateException(
            "every sample must be a transition: " + transitions + " of " + passes * batch);
      }
      checkStillDeciding();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      checkStillDeciding();
    }

    private void checkStillDeciding() {
      if (selfPoints > 0) {
        throw new IllegalStateException(
            selfPoints + " self points (suspended rule or flapping point): the limits tripped");
      }
      List<RuleStatus> off =
          engine.statuses().stream().filter(s -> s.state() != RuleState.ACTIVE).toList();
      if (!off.isEmpty()) {
        throw new IllegalStateException(
            off.size() + " rules left the active state (limits tripped?), e.g. " + off.get(0));
      }
    }

    /** The measured op's body; also used to warm up in setup. */
    private PassResult pass() {
      Instant from = now;
      now = now.plusNanos(PASS_NANOS);
      Sample[] samples = stream.next(from, now, shape.equals("100-spread"));
      PassResult result = engine.pass(now, Arrays.asList(samples), false);
      selfPoints += result.selfPoints().size();
      return result;
    }
  }

  /**
   * One pass. SampleTime gives the distribution of single passes (p50, p99, p99.9); Throughput the
   * passes per second (JMH reports ops/µs: multiply by 10^6).
   */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime, Mode.Throughput})
  public void pass(Site site, Blackhole bh) {
    bh.consume(site.pass());
  }

  /** The part of {@link #pass(Site, Blackhole)} that is not the engine: building 100 samples. */
  @State(Scope.Benchmark)
  public static class SamplesOnly {
    Stream stream;
    Instant now = START;

    @Setup(Level.Trial)
    public void setUp() {
      stream = Stream.build(SiteModel.build(), 100, 2048, 20250106L);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  public void buildSamplesOnly(SamplesOnly s, Blackhole bh) {
    Instant from = s.now;
    s.now = s.now.plusNanos(PASS_NANOS);
    bh.consume(Arrays.asList(s.stream.next(from, s.now, false)));
  }

  /** The site: its YAML and what the sample stream needs to know about its points. */
  static final class SiteModel {
    static final int ZONES = 200;
    static final int TEMPS = 40;
    static final int SWITCHES = 5;
    static final int RULES_PER_ZONE = 5;

    /** Inputs read by several rules (an outdoor temperature and the like). */
    static final String[] SHARED = {"z000.temp-39", "z001.temp-39", "z002.temp-39", "z003.temp-39"};

    final StringBuilder points = new StringBuilder("points:\n");
    final StringBuilder rules = new StringBuilder();
    final Map<String, Double> centre = new LinkedHashMap<>();
    final List<String> inputs = new ArrayList<>();
    final LinkedHashSet<String> read = new LinkedHashSet<>();
    int pointCount;
    String[] inputIds;
    String[] hotInputs;
    boolean[] hotIsBool;
    double[] hotCentre;

    static SiteModel build() {
      SiteModel m = new SiteModel();
      for (int i = 0; i < ZONES * RULES_PER_ZONE; i++) {
        m.writeRule(i);
      }
      m.writePoints();
      m.inputIds = m.inputs.toArray(String[]::new);
      m.hotInputs = m.read.toArray(String[]::new);
      m.hotIsBool = new boolean[m.hotInputs.length];
      m.hotCentre = new double[m.hotInputs.length];
      for (int h = 0; h < m.hotInputs.length; h++) {
        Double c = m.centre.get(m.hotInputs[h]);
        m.hotIsBool[h] = c == null;
        m.hotCentre[h] = c == null ? 0 : c;
      }
      return m;
    }

    RuleSet load() {
      Problems problems = new Problems();
      Registry registry = RegistryLoader.load("points.yaml", points.toString(), problems);
      List<Rule> list = RuleLoader.load("rules/site.yaml", rules.toString(), registry, problems);
      RuleSetChecks.check(list, problems);
      List<Problem> all = problems.sorted();
      if (!all.isEmpty()) {
        throw new IllegalStateException(
            all.size() + " problems in the generated site, first: " + all.get(0).format());
      }
      if (registry.points().size() != pointCount || list.size() != ZONES * RULES_PER_ZONE) {
        throw new IllegalStateException(
            registry.points().size() + " points, " + list.size() + " rules loaded");
      }
      return new RuleSet(registry, list);
    }

    static String zone(int z) {
      return String.format(Locale.ROOT, "z%03d", z);
    }

    static String temp(int z, int t) {
      return String.format(Locale.ROOT, "z%03d.temp-%02d", z, t);
    }

    static String sw(int z, int k) {
      return zone(z) + ".sw-" + k;
    }

    /** Rule slot k of a zone claims out-k (k even) or valve-k (k odd). */
    static String output(int z, int k) {
      return zone(z) + (k % 2 == 1 ? ".valve-" : ".out-") + k;
    }

    /** Where the thresholds on a number input (and so its values) lie: 20 to 69 degC. */
    static double centreOf(String id) {
      return 20.0 + Math.floorMod(id.hashCode() * 31 + 17, 50);
    }

    /**
     * The registry. Inputs that rules read are watched (stale_after, unavailable_after), as a site
     * would watch the sensors it controls with; the stream samples them often enough never to age.
     * The others are monitoring points that report once (at priming) and are not watched, so that
     * no mass ageing lands in the middle of a measurement.
     */
    private void writePoints() {
      for (int z = 0; z < ZONES; z++) {
        for (int t = 0; t < TEMPS; t++) {
          String id = temp(z, t);
          centre.put(id, centreOf(id));
          inputs.add(id);
          points.append("  ").append(id).append(":\n");
          points.append(
              "    { type: number, unit: degC, direction: in, deadband: 0.5, range: [-40, 150]");
          points.append(
              read.contains(id) ? ", stale_after: 60s, unavailable_after: 10m }\n" : " }\n");
        }
        for (int k = 0; k < SWITCHES; k++) {
          String id = sw(z, k);
          inputs.add(id);
          points.append("  ").append(id).append(":\n");
          points.append("    { type: bool, direction: in");
          points.append(read.contains(id) ? ", stale_after: 2m }\n" : " }\n");
        }
        for (int k = 0; k < RULES_PER_ZONE; k++) {
          points.append("  ").append(output(z, k)).append(":\n");
          points.append(
              k % 2 == 1
                  ? "    { type: number, unit: \"%\", direction: out, range: [0, 100],"
                      + " driver: { mqtt: {} }, release_value: 0 }\n"
                  : "    { type: bool, direction: out, driver: { mqtt: {} },"
                      + " command_rate: { min_interval: 2s }, release_value: false }\n");
        }
      }
      pointCount = ZONES * (TEMPS + SWITCHES + RULES_PER_ZONE);
    }

    private static String num(double d) {
      return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }

    private static String fahrenheit(double c) {
      return String.format(Locale.ROOT, "%.1f", c * 1.8 + 32);
    }

    private void writeRule(int i) {
      int z = i / RULES_PER_ZONE;
      int k = i % RULES_PER_ZONE;
      String a = temp(z, 2 * k);
      String c = temp(z, 2 * k + 1);
      String b = sw(z, k);
      String o = SHARED[i % SHARED.length];
      double ta = centreOf(a);
      double tc = centreOf(c);
      double to = centreOf(o);
      boolean interlock = i % 10 == 9;
      StringBuilder r = rules;

      Map<String, String> in = new LinkedHashMap<>();
      String when;
      String band;
      String claimPoint;
      boolean claimBool;
      if (interlock) {
        // Protects a point that another rule of the zone drives.
        int m = i / 10;
        claimPoint = m % 2 == 0 ? output(z, 3) : output(z, 2);
        claimBool = m % 2 == 1;
        in.put("a", a);
        in.put("c", c);
        when = "a.value >= " + fahrenheit(ta) + " degF or c.value >= " + num(tc);
        band = "interlock";
      } else {
        claimPoint = output(z, k);
        claimBool = k % 2 == 0;
        int s = Math.floorMod(i * 31 + 7, 100);
        if (s < 45) {
          in.put("a", a);
          in.put("b", b);
          when =
              k % 2 == 0
                  ? "a.value > " + num(ta) + " and b.value == false"
                  : "b.value and a.value < " + num(ta);
        } else if (s < 75) {
          in.put("a", a);
          in.put("c", c);
          in.put("b", b);
          when = "(a.value > " + num(ta) + " or c.value >= " + num(tc) + " degC) and not b.value";
        } else if (s < 90) {
          in.put("a", a);
          in.put("c", c);
          when = "a.value - c.value > " + num(ta - tc) + " and a.value < 90";
        } else {
          in.put("a", a);
          in.put("c", c);
          in.put("o", o);
          when =
              "a.value < "
                  + num(ta)
                  + " and o.value < "
                  + num(to)
                  + " and c.value <= "
                  + fahrenheit(tc)
                  + " degF";
        }
        int h = Math.floorMod(i * 7919, 100);
        band =
            h < 6
                ? "safety"
                : h < 18
                    ? "operator"
                    : h < 30 ? "orchestration" : h < 88 ? "automation" : "ambient";
      }
      read.addAll(in.values());

      r.append("- id: ").append(zone(z)).append(interlock ? ".interlock-" : ".rule-").append(k);
      r.append("\n  band: ").append(band).append('\n');
      boolean failSafe = interlock && (i / 10) % 5 != 0;
      String protective = claimBool ? "false" : "0";
      if (interlock) {
        r.append("  interlock_class: ").append(failSafe ? "fail_safe" : "fail_clear").append('\n');
        if (failSafe) {
          r.append("  fail_value: ").append(protective).append('\n');
        }
      }
      r.append("  inputs: { ");
      r.append(
          String.join(
              ", ", in.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
      r.append(" }\n");

      int g = Math.floorMod(i * 104_729 + 13, 100);
      String requiredQuality = null;
      if (interlock || g < 76) {
        r.append(
            g % 2 == 0 || interlock
                ? "  trigger: { on: transition }\n"
                : "  trigger: { on: transition, of: [" + String.join(", ", in.keySet()) + "] }\n");
      } else if (g < 92) {
        String of = in.containsKey("b") ? "b" : "a";
        r.append("  trigger: { on: edge, of: ").append(of).append(", edge: rising }\n");
      } else {
        r.append("  trigger: { on: quality, of: a, to: [stale, unavailable, bad] }\n");
        when = "a.quality in [stale, unavailable, bad] or (" + when + ")";
        requiredQuality = "live_or_stale";
      }
      r.append("  when: \"").append(when).append("\"\n");
      String value = interlock ? protective : claimBool ? "true" : "60";
      r.append("  claims:\n    - { point: ").append(claimPoint).append(", value: ").append(value);
      if (band.equals("automation") && i % 4 == 0) {
        r.append(", expires_in: 2s");
      }
      r.append(" }\n");
      if (requiredQuality != null) {
        r.append("  required_quality: ").append(requiredQuality).append('\n');
      }
      if (failSafe) {
        r.append("  on_input_loss: { assert: ").append(protective).append(" }\n");
        r.append("  warmup: all_inputs_live\n");
      } else {
        switch (i % 7) {
          case 0 -> r.append("  on_input_loss: hold\n  hold_max: 10m\n");
          case 1 -> r.append("  on_input_loss: { assert: ").append(value).append(" }\n");
          default -> r.append("  on_input_loss: release\n");
        }
        switch (i % 6) {
          case 0 -> r.append("  warmup: deadline(60s)\n");
          case 1 -> r.append("  warmup: all_inputs_known\n");
          default -> r.append("  warmup: all_inputs_live\n");
        }
      }
      r.append('\n');
    }
  }

  /**
   * The precomputed, cyclic ring of batches: for each pass, which inputs and which values. Only the
   * {@link Sample} records (and their instants) are made per pass.
   */
  static final class Stream {
    final String[][] ids;
    final Value[][] values;
    final Value[] prime;
    final SiteModel model;
    final Map<String, Integer> hotIndex = new LinkedHashMap<>();
    int cursor;

    private Stream(SiteModel model, String[][] ids, Value[][] values, Value[] prime) {
      this.model = model;
      this.ids = ids;
      this.values = values;
      this.prime = prime;
      for (int h = 0; h < model.hotInputs.length; h++) {
        hotIndex.put(model.hotInputs[h], h);
      }
    }

    int batches() {
      return ids.length;
    }

    /**
     * Where the ring leaves a point, so that priming with it makes the ring's first visit a move.
     */
    Value primeValue(int input) {
      Integer h = hotIndex.get(model.inputIds[input]);
      if (h != null) {
        return prime[h];
      }
      String id = model.inputIds[input];
      return model.centre.containsKey(id) ? Value.of(model.centre.get(id)) : Value.FALSE;
    }

    /**
     * The next batch, stamped at {@code to} or spread evenly over ({@code from}, {@code to}] with
     * the last sample at {@code to}.
     */
    Sample[] next(Instant from, Instant to, boolean spread) {
      String[] id = ids[cursor];
      Value[] v = values[cursor];
      cursor = cursor + 1 == ids.length ? 0 : cursor + 1;
      Sample[] out = new Sample[id.length];
      if (!spread) {
        for (int i = 0; i < id.length; i++) {
          out[i] = new Sample(id[i], v[i], Quality.LIVE, to);
        }
      } else {
        long step = Duration.between(from, to).toNanos() / id.length;
        for (int i = 0; i < id.length - 1; i++) {
          out[i] = new Sample(id[i], v[i], Quality.LIVE, from.plusNanos(step * (i + 1)));
        }
        out[id.length - 1] = new Sample(id[id.length - 1], v[id.length - 1], Quality.LIVE, to);
      }
      return out;
    }

    static Stream build(SiteModel model, int batch, int half, long seed) {
      Random random = new Random(seed);
      int hot = model.hotInputs.length;
      int[][] pick = new int[2 * half][];
      int[] deck = new int[hot];
      for (int h = 0; h < hot; h++) {
        deck[h] = h;
      }
      for (int p = 0; p < half; p++) {
        // A partial Fisher-Yates shuffle: batch distinct inputs.
        for (int j = 0; j < batch; j++) {
          int r = j + random.nextInt(hot - j);
          int t = deck[j];
          deck[j] = deck[r];
          deck[r] = t;
        }
        pick[p] = Arrays.copyOf(deck, batch);
      }
      // The second half visits the same inputs in the same order: every input an even number of
      // times, so a bool that flips at each visit is back where it started after a lap.
      for (int p = 0; p < half; p++) {
        pick[half + p] = pick[p];
      }
      int[] remaining = new int[hot];
      for (int[] b : pick) {
        for (int h : b) {
          remaining[h]++;
        }
      }
      double[] first = new double[hot];
      double[] last = new double[hot];
      Arrays.fill(first, Double.NaN);
      Arrays.fill(last, Double.NaN);
      boolean[] bool = new boolean[hot];
      for (int h = 0; h < hot; h++) {
        bool[h] = random.nextBoolean();
      }
      String[][] ids = new String[pick.length][batch];
      Value[][] values = new Value[pick.length][batch];
      for (int p = 0; p < pick.length; p++) {
        for (int j = 0; j < batch; j++) {
          int h = pick[p][j];
          ids[p][j] = model.hotInputs[h];
          remaining[h]--;
          if (model.hotIsBool[h]) {
            bool[h] = !bool[h];
            values[p][j] = Value.of(bool[h]);
            continue;
          }
          double c = model.hotCentre[h];
          double v;
          while (true) {
            // 60% of moves cross the threshold, the others stay on their side.
            boolean above =
                Double.isNaN(last[h])
                    ? random.nextBoolean()
                    : (last[h] > c) != (random.nextDouble() < 0.6);
            double offset = Math.round(10 * (1.0 + 7.0 * random.nextDouble())) / 10.0;
            v = above ? c + offset : c - offset;
            boolean moves = Double.isNaN(last[h]) || Math.abs(v - last[h]) >= 1.0;
            boolean closes = remaining[h] > 0 || Math.abs(v - first[h]) >= 1.0;
            if (moves && closes) {
              break;
            }
          }
          if (Double.isNaN(first[h])) {
            first[h] = v;
          }
          last[h] = v;
          values[p][j] = Value.of(v);
        }
      }
      Value[] prime = new Value[hot];
      for (int h = 0; h < hot; h++) {
        prime[h] =
            model.hotIsBool[h]
                ? Value.of(bool[h])
                : Value.of(Double.isNaN(last[h]) ? model.hotCentre[h] : last[h]);
      }
      return new Stream(model, ids, values, prime);
    }
  }
}
