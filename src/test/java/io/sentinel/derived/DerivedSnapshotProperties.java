package io.sentinel.derived;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.PointSpec;
import io.sentinel.point.PointTable;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Seeds 003 and 004: random observation logs split into random batches, with the derived points'
 * state saved to JSON and taken back into a new layer between batches, give the same transitions
 * and the same firing ids as one batch.
 */
class DerivedSnapshotProperties {
  private static final Instant START = Instant.parse("2026-06-01T00:00:00Z");
  private static RuleSet ruleSet;

  @BeforeContainer
  static void load() {
    ruleSet = Site.load(Path.of("src/test/resources/sites/derived")).site().orElseThrow().ruleSet();
  }

  record Observation(long delayMillis, int point, double number, int symbol, boolean live) {}

  /** A point table and a derived layer, driven step by step as the engine drives them. */
  private static final class Harness {
    final PointTable table = new PointTable(ruleSet.registry(), START);
    final LagTime lag = new LagTime(START);
    DerivedLayer layer = new DerivedLayer(ruleSet.derived(), table, lag, START);
    final List<Object> seen = new ArrayList<>();

    void run(List<Sample> batch, Instant now) {
      int i = 0;
      while (true) {
        Instant nextSample = i < batch.size() ? batch.get(i).at() : null;
        Optional<Instant> due = layer.nextDue().filter(d -> !d.isAfter(now));
        if (nextSample == null && due.isEmpty()) {
          return;
        }
        Instant t =
            nextSample == null || due.isPresent() && due.get().isBefore(nextSample)
                ? due.get()
                : nextSample;
        lag.advance(t);
        List<Sample> at = new ArrayList<>();
        while (i < batch.size() && batch.get(i).at().equals(t)) {
          at.add(batch.get(i++));
        }
        List<Transition> transitions = new ArrayList<>();
        at.forEach(s -> table.apply(s).ifPresent(transitions::add));
        seen.addAll(transitions);
        seen.addAll(layer.step(t, at, transitions));
        seen.addAll(layer.drainFirings());
      }
    }

    void saveAndRestore() {
      String json = layer.snapshot();
      layer = new DerivedLayer(ruleSet.derived(), table, lag, START);
      layer.restore(json);
    }
  }

  @Property(tries = 200)
  void savingAndRestoringBetweenBatchesChangesNothing(
      @ForAll("logs") List<Observation> log, @ForAll("cuts") List<Integer> cuts) {
    List<Sample> samples = samples(log);
    Instant end =
        (samples.isEmpty() ? START : samples.get(samples.size() - 1).at()).plusSeconds(600);

    Harness whole = new Harness();
    whole.run(samples, end);

    Harness split = new Harness();
    int from = 0;
    for (int cut : cuts) {
      int to = Math.min(samples.size(), from + cut);
      if (to <= from) {
        continue;
      }
      Instant now = samples.get(to - 1).at();
      split.run(samples.subList(from, to), now);
      split.saveAndRestore();
      from = to;
    }
    split.run(samples.subList(from, samples.size()), end);

    int first = 0;
    while (first < Math.min(split.seen.size(), whole.seen.size())
        && split.seen.get(first).equals(whole.seen.get(first))) {
      first++;
    }
    int at = first;
    assertThat(split.seen)
        .as(
            () ->
                "first difference at "
                    + at
                    + ": one batch "
                    + (at < whole.seen.size() ? whole.seen.get(at) : "-")
                    + " / split "
                    + (at < split.seen.size() ? split.seen.get(at) : "-"))
        .isEqualTo(whole.seen);
  }

  private static List<Sample> samples(List<Observation> log) {
    List<PointSpec> inputs =
        ruleSet.registry().points().values().stream()
            .filter(p -> !p.direction().claimable() && !ruleSet.derived().contains(p.id()))
            .toList();
    List<Sample> out = new ArrayList<>();
    Instant t = START;
    for (Observation o : log) {
      t = t.plusMillis(o.delayMillis());
      PointSpec p = inputs.get(o.point() % inputs.size());
      Value v;
      if (p.type() instanceof PointType.Bool) {
        v = Value.of(o.symbol() % 2 == 0);
      } else if (p.type() instanceof PointType.Enum e) {
        v = Value.of(e.values().get(o.symbol() % e.values().size()));
      } else {
        v = Value.of(o.number());
      }
      out.add(new Sample(p.id(), v, o.live() ? Quality.LIVE : Quality.STALE, t));
    }
    return out;
  }

  @Provide
  Arbitrary<List<Observation>> logs() {
    return Combinators.combine(
            Arbitraries.longs().between(1, 20_000),
            Arbitraries.integers().between(0, 5),
            Arbitraries.doubles().between(30, 45).ofScale(1),
            Arbitraries.integers().between(0, 5),
            Arbitraries.frequency(
                net.jqwik.api.Tuple.of(9, true), net.jqwik.api.Tuple.of(1, false)))
        .as(Observation::new)
        .list()
        .ofMaxSize(150);
  }

  @Provide
  Arbitrary<List<Integer>> cuts() {
    return Arbitraries.integers().between(0, 20).list().ofMaxSize(30);
  }
}
