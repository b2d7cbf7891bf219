package io.sentinel.bench;

import io.sentinel.derived.DerivedSet;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.engine.StartMode;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.DerivedLoader;
import io.sentinel.site.RegistryLoader;
import io.sentinel.site.RuleLoader;
import io.sentinel.site.rules.RuleSetChecks;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
 * <p>The parameter {@code derived} adds, at {@code 1000}, a {@code derived.yaml} of 1,000 derived
 * points over the inputs that rules read, loaded by {@link DerivedLoader} and merged into the
 * registry the rules are loaded against, as {@code Site.load} does: 400 hysteresis (2 degC either
 * side of the rules' threshold), 200 rolling_avg (5 s), 150 debounce, 100 rate (10 s), 25 each of
 * count, absence, dedupe and throttle, and 50 derived of derived (debounce of a hysteresis,
 * hysteresis of a rolling_avg). Every third rule (334) reads one instead of a raw input: its slot a
 * becomes a hysteresis (the condition tests the bool), a rolling_avg, a rate (tests its sign) or a
 * debounce of a hysteresis, or its switch b becomes a debounce or an absence. The points, the
 * stream, and the rules' ids, bands, triggers and claims are the same as with {@code 0}. Debounce
 * ({@code stable_for: 10ms}) and absence ({@code within: 50ms}) are set in the stream's compressed
 * time, like the limits below: in the 100-sample shapes each input changes every 23 ms on average,
 * so a debounce of seconds would never settle and its rules would never leave warmup. The windows
 * of rolling_avg and rate keep their real length: in those shapes they hold about 220 and 430
 * samples each.
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
 * 20 to 90 ms instead of 3 to 6 ms. A gateway runs with a fixed heap for the same reason. The
 * collector is the gateway's, the serial one ({@code src/main/jvm/edge.options}): G1, the JVM's
 * default, adds a barrier with a fence to every reference stored into a long-lived object, which
 * the gateway never pays (docs/benchmarks.md, session 12, quotes both). To measure under G1, give
 * all four again: {@code -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:+UseG1GC"}.
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
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC"})
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

    /** Derived points in the site: none, or 1,000 over the inputs that rules read. */
    @Param({"0", "1000"})
    public int derived;

    private Engine engine;
    private Stream stream;
    private SiteModel model;
    private Instant now;

    /** Self points (rule suspended, point flapping) seen: the limits tripped if any. */
    private long selfPoints;

    @Setup(Level.Trial)
    public void setUp() {
      model = SiteModel.build(derived);
      RuleSet ruleSet = model.load();
      int batch = shape.startsWith("100") ? 100 : 1;
      stream = Stream.build(model, batch, batch == 100 ? 2048 : 100_000, 20250106L);
      stream.asDecoded(ruleSet.registry());
      engine = new Engine(ruleSet, START, StartMode.COLD, SCALED_LIMITS);
      now = START;

      // Cold start, then every input live once (the prime values are where the ring leaves each
      // point, so the ring follows on seamlessly): every rule that reads only raw inputs leaves
      // warmup; one that reads a debounce leaves it once the debounce has settled, in the lap
      // below.
      now = now.plusNanos(PASS_NANOS);
      List<Sample> prime = new ArrayList<>();
      for (int p = 0; p < model.inputIds.length; p++) {
        prime.add(Sample.live(model.inputIds[p], stream.primeValue(p), now));
      }
      engine.pass(now, prime, false);
      List<RuleStatus> notActive =
          engine.statuses().stream()
              .filter(s -> s.state() != RuleState.ACTIVE)
              .filter(s -> !model.readsDerived.contains(s.ruleId()))
              .toList();
      if (!notActive.isEmpty()) {
        throw new IllegalStateException(
            notActive.size() + " rules not active after priming, e.g. " + notActive.get(0));
      }

      // One lap of the ring and past the longest window (rate, 10 s) and expires_in (2 s), so that
      // timers, claim tables, flap lists and the derived points' windows are at their steady size
      // before JMH's own warmup begins; it also says what a pass does on average.
      long passes = Math.max(stream.batches(), 12_000);
      long transitions = 0;
      long derivedTransitions = 0;
      long firings = 0;
      long claimChanges = 0;
      long decisions = 0;
      Map<String, Integer> events = new TreeMap<>();
      for (long i = 0; i < passes; i++) {
        PassResult r = pass();
        for (Transition t : r.transitions()) {
          if (model.derivedIds.contains(t.pointId())) {
            derivedTransitions++;
          } else {
            transitions++;
          }
        }
        firings += r.firings().size();
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
      if (derived > 0) {
        System.out.printf(
            Locale.ROOT,
            "%n[site] %d derived points %s; %d rules read one, of kinds %s",
            ruleSet.derived().ordered().size(),
            model.derivedMix,
            model.readsDerived.size(),
            model.readMix);
      }
      System.out.printf(
          Locale.ROOT,
          "%n[site] %d points, %d rules, %d inputs read by rules; shape %s, derived %d: per pass"
              + " %.2f transitions of inputs, %.2f of derived points, %.2f firings, %.2f claim"
              + " changes, %.2f decisions; events over %d passes: %s%n",
          ruleSet.registry().points().size(),
          ruleSet.rules().size(),
          model.hotInputs.length,
          shape,
          derived,
          transitions / (double) passes,
          derivedTransitions / (double) passes,
          firings / (double) passes,
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
      // In shape 1 an input reports every 2.3 s on average, so a 5 s rolling_avg is now and then
      // empty (unavailable) and the rules reading it lose their input until the next sample: the
      // site working as written, not a limit. Any other state than active is a failure.
      List<RuleStatus> off =
          engine.statuses().stream()
              .filter(s -> s.state() != RuleState.ACTIVE)
              .filter(
                  s ->
                      !(s.state() == RuleState.INPUT_LOST || s.state() == RuleState.HOLDING)
                          || !model.readsDerived.contains(s.ruleId()))
              .toList();
      if (!off.isEmpty()) {
        throw new IllegalStateException(
            off.size() + " rules left the active state (limits tripped?), e.g. " + off.get(0));
      }
    }

    /** The measured op's body; also used to warm up in setup. */
    PassResult pass() {
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
      stream = Stream.build(SiteModel.build(0), 100, 2048, 20250106L);
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

    /**
     * The derived points of a site with 1,000 of them, by kind. "derived-of-derived" are debounces
     * of a hysteresis and hystereses of a rolling_avg; the points they read count in their own
     * kinds.
     */
    static final Map<String, Integer> DERIVED_MIX = new LinkedHashMap<>();

    static {
      DERIVED_MIX.put("hysteresis", 400);
      DERIVED_MIX.put("rolling_avg", 200);
      DERIVED_MIX.put("debounce", 150);
      DERIVED_MIX.put("rate", 100);
      DERIVED_MIX.put("count", 25);
      DERIVED_MIX.put("absence", 25);
      DERIVED_MIX.put("dedupe", 25);
      DERIVED_MIX.put("throttle", 25);
      DERIVED_MIX.put("derived-of-derived", 50);
    }

    /** What a rule that reads a derived point reads instead of a raw input. */
    enum Read {
      HYSTERESIS,
      ROLLING_AVG,
      DEBOUNCE,
      RATE,
      DEBOUNCED_HYSTERESIS,
      ABSENCE
    }

    final int derivedCount;
    final StringBuilder points = new StringBuilder("points:\n");
    final StringBuilder rules = new StringBuilder();
    final Map<String, Double> centre = new LinkedHashMap<>();
    final List<String> inputs = new ArrayList<>();
    final LinkedHashSet<String> read = new LinkedHashSet<>();

    /** Derived point id to its flow mapping in derived.yaml. */
    final Map<String, String> derivedDefs = new LinkedHashMap<>();

    final Map<String, Integer> derivedMix = new LinkedHashMap<>();
    final Map<String, Integer> readMix = new TreeMap<>();
    final Set<String> derivedIds = new HashSet<>();
    final Set<String> readsDerived = new HashSet<>();
    int pointCount;
    String[] inputIds;
    String[] hotInputs;
    boolean[] hotIsBool;
    double[] hotCentre;

    private SiteModel(int derivedCount) {
      if (derivedCount != 0 && derivedCount != 1000) {
        throw new IllegalArgumentException("derived is 0 or 1000, not " + derivedCount);
      }
      this.derivedCount = derivedCount;
      DERIVED_MIX.keySet().forEach(k -> derivedMix.put(k, 0));
    }

    static SiteModel build(int derivedCount) {
      SiteModel m = new SiteModel(derivedCount);
      for (int i = 0; i < ZONES * RULES_PER_ZONE; i++) {
        m.writeRule(i);
      }
      m.writePoints();
      if (derivedCount > 0) {
        m.fillDerived();
      }
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

    String derivedYaml() {
      StringBuilder y = new StringBuilder("derived:\n");
      derivedDefs.forEach(
          (id, def) -> y.append("  ").append(id).append(": ").append(def).append('\n'));
      return y.toString();
    }

    /**
     * Through the real loaders, as {@code Site.load} does: the registry, the derived points over
     * it, one registry holding both for the rules, then the rule-set checks.
     */
    RuleSet load() {
      Problems problems = new Problems();
      Registry base = RegistryLoader.load("points.yaml", points.toString(), problems);
      DerivedSet derivedSet =
          derivedCount == 0
              ? DerivedSet.EMPTY
              : DerivedLoader.load("derived.yaml", derivedYaml(), base, problems);
      List<PointSpec> all = new ArrayList<>(base.points().values());
      derivedSet.ordered().forEach(d -> all.add(d.spec()));
      Registry registry = Registry.of(all);
      List<Rule> list = RuleLoader.load("rules/site.yaml", rules.toString(), registry, problems);
      RuleSetChecks.check(list, problems);
      List<Problem> found = problems.sorted();
      if (!found.isEmpty()) {
        throw new IllegalStateException(
            found.size() + " problems in the generated site, first: " + found.get(0).format());
      }
      if (base.points().size() != pointCount
          || derivedSet.ordered().size() != derivedCount
          || registry.points().size() != pointCount + derivedCount
          || list.size() != ZONES * RULES_PER_ZONE) {
        throw new IllegalStateException(
            base.points().size()
                + " points, "
                + derivedSet.ordered().size()
                + " derived points, "
                + list.size()
                + " rules loaded");
      }
      if (derivedCount > 0 && !derivedMix.equals(DERIVED_MIX)) {
        throw new IllegalStateException("derived mix " + derivedMix + " instead of " + DERIVED_MIX);
      }
      return new RuleSet(registry, list, derivedSet);
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

    private static String above(boolean high, boolean rate, double t) {
      return high ? "a.value" : rate ? "a.value > 0" : "a.value > " + num(t);
    }

    private static String below(boolean high, boolean rate, double t) {
      return high ? "not a.value" : rate ? "a.value < 0" : "a.value < " + num(t);
    }

    /**
     * The derived point that the j-th rule reading one reads: hysteresis (4 in 10), rolling_avg
     * (2), debounce (1, of the switch b when the rule has one), rate (1), debounce of a hysteresis
     * (1), absence on the switch b (1).
     */
    private static Read derivedRead(int j) {
      return switch (j % 10) {
        case 0, 1, 2, 3 -> Read.HYSTERESIS;
        case 4, 5 -> Read.ROLLING_AVG;
        case 6 -> Read.DEBOUNCE;
        case 7 -> Read.RATE;
        case 8 -> Read.DEBOUNCED_HYSTERESIS;
        default -> Read.ABSENCE;
      };
    }

    private String readDerived(Read reads, String input) {
      return switch (reads) {
        case HYSTERESIS -> hysteresis(input);
        case ROLLING_AVG -> rollingAvg(input);
        case DEBOUNCE -> debounce(input);
        case RATE -> rate(input);
        case DEBOUNCED_HYSTERESIS -> debounce(hysteresis(input));
        case ABSENCE -> absence(input);
      };
    }

    private boolean full(String kind) {
      return derivedMix.get(kind) >= DERIVED_MIX.get(kind);
    }

    /** Adds a derived point unless it is there already; its id either way. */
    private String define(String kind, String id, String definition) {
      if (derivedDefs.putIfAbsent(id, definition) == null) {
        derivedMix.merge(kind, 1, Integer::sum);
        derivedIds.add(id);
      }
      return id;
    }

    /**
     * On/off 2 degC either side of the input's centre, where the rules' thresholds lie (0.3 degC
     * for a hysteresis of a rolling_avg, which moves less).
     */
    private String hysteresis(String of) {
      boolean ofAverage = of.endsWith(".avg");
      double c = centreOf(ofAverage ? of.substring(0, of.length() - 4) : of);
      double half = ofAverage ? 0.3 : 2;
      return define(
          ofAverage ? "derived-of-derived" : "hysteresis",
          of + ".hyst",
          "{ kind: hysteresis, of: "
              + of
              + ", on_above: "
              + num(c + half)
              + ", off_below: "
              + num(c - half)
              + " }");
    }

    /**
     * 10 ms: in the 100-sample shapes an input changes every 23 ms on average, so a debounce of
     * seconds would never settle (and its rules never leave warmup); this one passes about two
     * changes in three and drops the others.
     */
    private String debounce(String of) {
      return define(
          derivedIds.contains(of) ? "derived-of-derived" : "debounce",
          of + ".deb",
          "{ kind: debounce, of: " + of + ", stable_for: 10ms }");
    }

    private String rollingAvg(String of) {
      return define(
          "rolling_avg",
          of + ".avg",
          "{ kind: rolling_avg, of: " + of + ", window: 5s, deadband: 0.1 }");
    }

    private String rate(String of) {
      return define("rate", of + ".rate", "{ kind: rate, of: " + of + ", window: 10s }");
    }

    private String count(String of) {
      return define(
          "count",
          of + ".count",
          "{ kind: count, of: " + of + ", when: \"value == true\", at_least: 3, within: 10s }");
    }

    private String absence(String of) {
      return define(
          "absence",
          of + ".absent",
          "{ kind: absence, of: " + of + ", when: \"value == true\", within: 50ms }");
    }

    private String dedupe(String of) {
      return define("dedupe", of + ".dedupe", "{ kind: dedupe, of: " + of + ", within: 1s }");
    }

    private String throttle(String of) {
      return define(
          "throttle", of + ".throttle", "{ kind: throttle, of: " + of + ", at_most: 2, per: 1s }");
    }

    /**
     * The derived points no rule reads (dashboards, notifications, other derived points), up to
     * {@link #DERIVED_MIX}: over the inputs that rules read, drawn in a seeded-random order.
     */
    private void fillDerived() {
      List<String> numbers = read.stream().filter(centre::containsKey).toList();
      List<String> switches = read.stream().filter(id -> !centre.containsKey(id)).toList();
      List<String> anyInput = new ArrayList<>(switches);
      anyInput.addAll(numbers);
      fill("hysteresis", numbers, 1, this::hysteresis);
      fill("rolling_avg", numbers, 2, this::rollingAvg);
      fill("debounce", anyInput, 3, this::debounce);
      fill("rate", numbers, 4, this::rate);
      fill("count", switches, 5, this::count);
      fill("absence", switches, 6, this::absence);
      fill("dedupe", numbers, 7, this::dedupe);
      fill("throttle", numbers, 8, this::throttle);
      // Derived of derived: debounces of hystereses and hystereses of rolling averages, in turn.
      List<String> hystereses =
          derivedIds.stream()
              .filter(id -> id.endsWith(".hyst") && !id.contains(".avg"))
              .sorted()
              .toList();
      List<String> averages =
          derivedIds.stream().filter(id -> id.endsWith(".avg")).sorted().toList();
      List<String> second = new ArrayList<>();
      List<String> h = shuffled(hystereses, 9);
      List<String> v = shuffled(averages, 10);
      for (int n = 0; n < Math.max(h.size(), v.size()); n++) {
        if (n < h.size()) {
          second.add(h.get(n));
        }
        if (n < v.size()) {
          second.add(v.get(n));
        }
      }
      fill(
          "derived-of-derived",
          second,
          0,
          id -> id.endsWith(".avg") ? hysteresis(id) : debounce(id));
    }

    private void fill(
        String kind,
        List<String> pool,
        long seed,
        java.util.function.Function<String, String> add) {
      for (String of : seed == 0 ? pool : shuffled(pool, seed)) {
        if (full(kind)) {
          return;
        }
        add.apply(of);
      }
      if (!full(kind)) {
        throw new IllegalStateException(
            "not enough inputs for " + DERIVED_MIX.get(kind) + " " + kind);
      }
    }

    private static List<String> shuffled(List<String> list, long seed) {
      List<String> copy = new ArrayList<>(list);
      Collections.shuffle(copy, new Random(seed));
      return copy;
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
      int s = Math.floorMod(i * 31 + 7, 100);
      StringBuilder r = rules;

      // The raw inputs, in the order that makes the stream (the same with or without derived
      // points), and what this rule reads instead of a or b when it reads a derived point.
      Map<String, String> in = new LinkedHashMap<>();
      in.put("a", a);
      if (interlock || s >= 45) {
        in.put("c", c);
      }
      if (!interlock && s < 75) {
        in.put("b", b);
      }
      if (!interlock && s >= 90) {
        in.put("o", o);
      }
      read.addAll(in.values());
      // The a - c form needs a number in degC in a; an absence or a debounce of a switch needs b.
      Read reads = derivedCount > 0 && i % 3 == 0 ? derivedRead(i / 3) : null;
      boolean needsDegC = !interlock && s >= 75 && s < 90;
      if (reads == Read.ABSENCE && (!in.containsKey("b") || full("absence"))
          || reads == Read.DEBOUNCED_HYSTERESIS && full("derived-of-derived")) {
        reads = Read.HYSTERESIS;
      }
      if (needsDegC && reads != null && reads != Read.DEBOUNCE) {
        reads = Read.ROLLING_AVG;
      }
      if (interlock && reads == Read.RATE) {
        reads = Read.ROLLING_AVG;
      }
      if (reads != null) {
        String slot =
            (reads == Read.ABSENCE || reads == Read.DEBOUNCE) && in.containsKey("b") ? "b" : "a";
        in.put(slot, readDerived(reads, in.get(slot)));
        readsDerived.add(zone(z) + (interlock ? ".interlock-" : ".rule-") + k);
        readMix.merge(reads.name().toLowerCase(Locale.ROOT), 1, Integer::sum);
      }
      // How the condition reads a: a number (raw, rolling_avg, debounce), a bool that is true
      // above the threshold (hysteresis) or a number that is positive while a rises (rate).
      boolean aHigh = reads == Read.HYSTERESIS || reads == Read.DEBOUNCED_HYSTERESIS;
      boolean aRate = reads == Read.RATE;

      String when;
      String band;
      String claimPoint;
      boolean claimBool;
      if (interlock) {
        // Protects a point that another rule of the zone drives.
        int m = i / 10;
        claimPoint = m % 2 == 0 ? output(z, 3) : output(z, 2);
        claimBool = m % 2 == 1;
        when =
            (aHigh ? "a.value" : "a.value >= " + fahrenheit(ta) + " degF")
                + " or c.value >= "
                + num(tc);
        band = "interlock";
      } else {
        claimPoint = output(z, k);
        claimBool = k % 2 == 0;
        if (s < 45) {
          when =
              k % 2 == 0
                  ? above(aHigh, aRate, ta) + " and b.value == false"
                  : "b.value and " + below(aHigh, aRate, ta);
        } else if (s < 75) {
          when =
              "("
                  + above(aHigh, aRate, ta)
                  + " or c.value >= "
                  + num(tc)
                  + " degC) and not b.value";
        } else if (s < 90) {
          when = "a.value - c.value > " + num(ta - tc) + " and a.value < 90";
        } else {
          when =
              below(aHigh, aRate, ta)
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
        // Stale only: under live_or_stale, unavailable and bad are input loss, which on_input_loss
        // decides and the condition never sees (RULE-029 warns of a trigger on them).
        r.append("  trigger: { on: quality, of: a, to: [stale] }\n");
        when = "a.quality in [stale] or (" + when + ")";
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

    /** Each sample's point position in the registry, as the ingest decoder gives it (-1: none). */
    private final int[][] positions;

    private Stream(SiteModel model, String[][] ids, Value[][] values, Value[] prime) {
      this.model = model;
      this.ids = ids;
      this.values = values;
      this.prime = prime;
      this.positions = new int[ids.length][];
      for (int b = 0; b < ids.length; b++) {
        positions[b] = new int[ids[b].length];
        Arrays.fill(positions[b], -1);
      }
      for (int h = 0; h < model.hotInputs.length; h++) {
        hotIndex.put(model.hotInputs[h], h);
      }
    }

    int batches() {
      return ids.length;
    }

    /**
     * The samples as the ingest decoder hands them to the engine: the registry's own id strings,
     * each with its point's position ({@code Sample.position}).
     */
    void asDecoded(io.sentinel.point.Registry registry) {
      List<io.sentinel.point.PointSpec> inOrder = registry.inOrder();
      Map<String, Integer> at = new java.util.HashMap<>();
      for (int i = 0; i < inOrder.size(); i++) {
        at.put(inOrder.get(i).id(), i);
      }
      for (int b = 0; b < ids.length; b++) {
        for (int i = 0; i < ids[b].length; i++) {
          int p = at.get(ids[b][i]);
          ids[b][i] = inOrder.get(p).id();
          positions[b][i] = p;
        }
      }
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
      int[] at = positions[cursor];
      cursor = cursor + 1 == ids.length ? 0 : cursor + 1;
      Sample[] out = new Sample[id.length];
      if (!spread) {
        for (int i = 0; i < id.length; i++) {
          out[i] = new Sample(id[i], v[i], Quality.LIVE, to, at[i]);
        }
      } else {
        long step = Duration.between(from, to).toNanos() / id.length;
        for (int i = 0; i < id.length - 1; i++) {
          out[i] = new Sample(id[i], v[i], Quality.LIVE, from.plusNanos(step * (i + 1)), at[i]);
        }
        int last = id.length - 1;
        out[last] = new Sample(id[last], v[last], Quality.LIVE, to, at[last]);
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
