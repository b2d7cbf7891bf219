package io.sentinel.bench;

import io.sentinel.command.CommandSettings;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.StartMode;
import io.sentinel.pass.Pass;
import io.sentinel.pass.ShadowPass;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What a shadow revision costs the engine loop's turn (docs/shadow.md): the example site's active
 * {@link Pass} with one flow sample per pass (the pump rule's condition flips every other pass),
 * alone ({@code shadow=none}) or followed by {@link ShadowPass#follow} with a candidate whose pump
 * threshold differs ({@code shadow=differing}: a difference opens and closes every few passes) or
 * whose rules are the same ({@code shadow=same}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ShadowPassBenchmark {
  private static final double[] FLOW = {30, 40, 50, 40};

  @Param({"none", "same", "differing"})
  String shadow;

  private Pass active;
  private ShadowPass follower;
  private Instant now;
  private int step;

  @Setup(Level.Trial)
  public void setUp() {
    Site site = Site.load(Path.of(".")).site().orElseThrow();
    String rules = Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));
    now = Instant.parse("2026-01-01T00:00:00Z");
    active =
        Pass.simulated(
            new Engine(rules(site, rules), now, StartMode.COLD), CommandSettings.DEFAULT);
    active.run(
        now,
        List.of(
            live("boiler.ch1.flow-temp", 30),
            live("boiler.ch1.pressure", 1.5),
            live("boiler.ch1.demand", false)),
        false);
    if (!shadow.equals("none")) {
      String candidate =
          shadow.equals("same") ? rules : rules.replace("flow.value > 35", "flow.value > 45");
      follower =
          ShadowPass.start(
              active.engine(),
              rules(site, candidate),
              false,
              EngineLimits.DEFAULT,
              CommandSettings.DEFAULT,
              c -> {});
    }
  }

  @Benchmark
  public void pass(Blackhole bh) {
    now = now.plusMillis(1);
    List<Sample> samples = List.of(live("boiler.ch1.flow-temp", FLOW[step++ & 3]));
    Pass.Outcome o = active.run(now, samples, false);
    bh.consume(o);
    if (follower != null) {
      bh.consume(follower.follow(now, samples, false, active.engine(), o.result()));
    }
  }

  private Sample live(String point, double v) {
    return new Sample(point, Value.of(v), Quality.LIVE, now);
  }

  private Sample live(String point, boolean v) {
    return new Sample(point, Value.of(v), Quality.LIVE, now);
  }

  private static RuleSet rules(Site site, String rules) {
    return RevisionDocument.check(
            "bench", "revision: 2\nsite: example\nrules:\n" + rules, site.basis(), "example")
        .ruleSet()
        .orElseThrow();
  }
}
