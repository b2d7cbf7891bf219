package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.CommandSettings;
import io.sentinel.engine.Engine;
import io.sentinel.engine.StartMode;
import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.Topics;
import io.sentinel.pass.Pass;
import io.sentinel.point.Quality;
import io.sentinel.point.Sample;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.site.Site;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Issue 13's isolation, as a property: random and mutated payloads, interleaved with good samples,
 * through the ingest decoder and the pass as the gateway runs them (decoded on receipt, then taken
 * by passes of random size). Never an exception out of the pass, never a lost good sample: every
 * good payload decodes to its one sample and makes its transition, whatever surrounds it. Samples
 * no decoder would make (a non-finite number, an unknown point) are mixed in too: the pass refuses
 * them alone.
 */
class IngestPassProperties {
  private static final Site SITE =
      Site.load(Path.of("src/test/resources/sites/hostile")).site().orElseThrow();
  private static final Topics TOPICS = new Topics("prop");
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final String GOOD = "{\"value\": \"good-%d\", \"ts\": \"2026-12-01T09:59:00Z\"}";

  /** One message: a good one (index >= 0) or a hostile one (raw bytes, on a point topic). */
  record Message(int good, String point, byte[] payload, boolean bypass) {}

  @Provide
  @SuppressWarnings("unchecked")
  Arbitrary<List<Message>> traffic() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(120);
    Arbitrary<String> fragments =
        Arbitraries.of(
            "\\u0000",
            "\\u001b[31m",
            "\\ud800",
            "1e304",
            "1e400",
            "\"unit\": \"bar\"",
            "[[[[",
            "}",
            "\"value\": 1, \"value\": 2",
            "\"ts\": \"+294277-01-01T00:00:00Z\"",
            "null",
            "\"",
            "\\",
            ",",
            "\u00e9",
            "\u0000");
    Arbitrary<byte[]> mutated =
        Combinators.combine(
                Arbitraries.integers().between(0, 60),
                Arbitraries.integers().between(0, 8),
                fragments,
                Arbitraries.of("label", "line.pressure", "zone.temp"))
            .as(
                (at, cut, f, p) -> {
                  String base =
                      p.equals("label")
                          ? String.format(GOOD, 999_999)
                          : "{\"value\": 2, \"unit\": \"bar\", \"quality\": \"live\"}";
                  int i = Math.min(at, base.length());
                  int j = Math.min(base.length(), i + cut);
                  return (base.substring(0, i) + f + base.substring(j))
                      .getBytes(StandardCharsets.UTF_8);
                });
    Arbitrary<Message> hostile =
        Combinators.combine(
                Arbitraries.oneOf(random, mutated),
                Arbitraries.of("label", "line.pressure", "zone.temp", "zone.vent", "nope"))
            .as((b, p) -> new Message(-1, p, b, false));
    Arbitrary<Message> bypass = Arbitraries.just(new Message(-1, "line.pressure", null, true));
    Arbitrary<Message> good = Arbitraries.just(new Message(0, "label", null, false));
    return Arbitraries.frequencyOf(Tuple.of(5, good), Tuple.of(8, hostile), Tuple.of(1, bypass))
        .list()
        .ofMinSize(1)
        .ofMaxSize(80);
  }

  @Property(tries = 300)
  void neverAnExceptionOutOfThePass_neverALostGoodSample(
      @ForAll("traffic") List<Message> traffic, @ForAll("passSizes") List<Integer> passSizes) {
    IngestDecoder decoder =
        IngestDecoder.of(SITE.ruleSet().registry(), TOPICS, 16_384, new ArrayList<>());
    Pass pass =
        Pass.simulated(new Engine(SITE.ruleSet(), T0, StartMode.COLD), CommandSettings.DEFAULT);
    List<Sample> queue = new ArrayList<>();
    Set<String> goodSent = new LinkedHashSet<>();
    int goods = 0;
    int bypassed = 0;
    Instant t = T0;
    for (Message m : traffic) {
      t = t.plusMillis(1);
      if (m.bypass()) {
        // What no decoder makes, handed to the pass all the same.
        queue.add(new Sample("line.pressure", Value.of(Double.POSITIVE_INFINITY), Quality.LIVE, t));
        queue.add(new Sample("no.such.point", Value.of(1), Quality.LIVE, t));
        bypassed += 2;
        continue;
      }
      byte[] payload =
          m.good() >= 0 ? String.format(GOOD, goods).getBytes(StandardCharsets.UTF_8) : m.payload();
      IngestDecoder.Decoded d = decoder.decode(TOPICS.point(m.point()), payload, t);
      if (m.good() >= 0) {
        assertThat(d.rejections()).as("good-%d", goods).isEmpty();
        assertThat(d.samples()).as("good-%d", goods).hasSize(1);
        goodSent.add("good-" + goods);
        goods++;
      }
      queue.addAll(d.samples());
    }
    Set<String> goodTaken = new LinkedHashSet<>();
    int refused = 0;
    int k = 0;
    for (int from = 0; from < queue.size(); k++) {
      int n = Math.max(1, passSizes.get(k % passSizes.size()));
      int to = Math.min(queue.size(), from + n);
      List<Sample> batch = queue.subList(from, to);
      Instant now = batch.get(batch.size() - 1).at();
      Pass.Outcome o = pass.run(now, batch, false); // must never throw
      refused += o.refused().size();
      for (Transition tr : o.result().transitions()) {
        if (tr.pointId().equals("label")
            && tr.current().value() instanceof Value.Text text
            && text.value().startsWith("good-")) {
          goodTaken.add(text.value());
        }
      }
      from = to;
    }
    assertThat(refused).isEqualTo(bypassed);
    assertThat(goodTaken).containsAll(goodSent);
  }

  @Provide
  Arbitrary<List<Integer>> passSizes() {
    return Arbitraries.integers().between(1, 20).list().ofMinSize(1).ofMaxSize(5);
  }
}
