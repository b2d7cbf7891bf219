package io.sentinel.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Seed 003: batching never changes decisions. The same observations fed in one pass, or split into
 * passes at random points (with the clock stopping at random instants between them), give the same
 * transitions, claims, arbitration outcomes, actions and control events.
 */
class BatchingInvarianceProperties {
  private static final Instant START = Instant.parse("2026-03-29T00:30:00Z");
  private static RuleSet ruleSet;

  @BeforeContainer
  static void load() {
    ruleSet =
        Site.load(Path.of("src/test/resources/sites/batching")).site().orElseThrow().ruleSet();
  }

  /** One observation: a delay after the previous one, a point and what it reports. */
  record Observation(
      long delayMillis, int point, double number, boolean flag, int mode, int quality) {}

  @Property(tries = 200)
  void oneBatchOrManyGiveTheSameDecisions(
      @ForAll("logs") List<Observation> log,
      @ForAll("cuts") List<Integer> cuts,
      @ForAll StartMode mode) {
    List<Sample> samples = samples(log);
    Instant end =
        samples.isEmpty()
            ? START.plusSeconds(120)
            : samples.get(samples.size() - 1).at().plusSeconds(120);

    Engine whole = new Engine(ruleSet, START, mode);
    List<PassResult> one = List.of(whole.pass(end, samples, false));

    Engine split = new Engine(ruleSet, START, mode);
    List<PassResult> many = new ArrayList<>();
    int from = 0;
    for (int cut : cuts) {
      int to = Math.min(samples.size(), from + cut);
      if (to <= from) {
        continue;
      }
      // Stop the clock somewhere between this batch's last sample and the next one.
      Instant last = samples.get(to - 1).at();
      Instant next = to < samples.size() ? samples.get(to).at() : end;
      Instant now = last.plusMillis(Duration.between(last, next).toMillis() / 2);
      many.add(split.pass(now, samples.subList(from, to), false));
      from = to;
    }
    many.add(split.pass(end, samples.subList(from, samples.size()), false));

    assertThat(flatten(many)).isEqualTo(flatten(one));
  }

  private static List<Object> flatten(List<PassResult> results) {
    List<Object> all = new ArrayList<>();
    for (PassResult r : results) {
      all.addAll(r.transitions());
      all.addAll(r.claimChanges());
      all.addAll(r.decisions());
      all.addAll(r.actions());
      all.addAll(r.events());
      all.addAll(r.selfPoints());
    }
    // Within one pass the kinds are listed apart; order each kind by time for the comparison.
    return all.stream()
        .sorted(java.util.Comparator.comparing(BatchingInvarianceProperties::at))
        .toList();
  }

  private static Instant at(Object o) {
    if (o instanceof io.sentinel.point.Transition t) {
      return t.current().since();
    }
    if (o instanceof ClaimChange c) {
      return c.at();
    }
    if (o instanceof ActionFired a) {
      return a.at();
    }
    if (o instanceof ControlEvent e) {
      return e.at();
    }
    if (o instanceof SelfPoint s) {
      return s.at();
    }
    return Instant.EPOCH; // decisions carry no time; their order among themselves is kept
  }

  private static List<Sample> samples(List<Observation> log) {
    List<PointSpec> inputs =
        ruleSet.registry().points().values().stream()
            .filter(p -> !p.direction().claimable())
            .toList();
    List<Sample> out = new ArrayList<>();
    Instant t = START;
    for (Observation o : log) {
      t = t.plusMillis(o.delayMillis());
      PointSpec p = inputs.get(o.point() % inputs.size());
      Value v;
      if (p.type() instanceof PointType.Bool) {
        v = Value.of(o.flag());
      } else if (p.type() instanceof PointType.Enum e) {
        v = Value.of(e.values().get(o.mode() % e.values().size()));
      } else {
        v = Value.of(o.number());
      }
      Quality q = Quality.values()[o.quality()];
      out.add(new Sample(p.id(), o.quality() == 2 && o.flag() ? Value.ABSENT : v, q, t));
    }
    return out;
  }

  @Provide
  Arbitrary<List<Observation>> logs() {
    Arbitrary<Observation> observation =
        Combinators.combine(
                Arbitraries.longs().between(1, 9_000),
                Arbitraries.integers().between(0, 3),
                Arbitraries.doubles().between(0, 100).ofScale(1),
                Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 2),
                // live most of the time, then stale, unavailable, bad
                Arbitraries.frequency(
                    net.jqwik.api.Tuple.of(12, 0),
                    net.jqwik.api.Tuple.of(2, 1),
                    net.jqwik.api.Tuple.of(1, 2),
                    net.jqwik.api.Tuple.of(1, 3)))
            .as(Observation::new);
    return observation.list().ofMinSize(0).ofMaxSize(120);
  }

  @Provide
  Arbitrary<List<Integer>> cuts() {
    return Arbitraries.integers().between(0, 15).list().ofMaxSize(30);
  }
}
