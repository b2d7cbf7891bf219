package io.sentinel.bench;

import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.Registry;
import io.sentinel.site.RegistryLoader;
import io.sentinel.site.yaml.Problems;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Random;
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

/**
 * What each MQTT message costs at the door before its pass (docs/load.md, session 19): {@link
 * IngestDecoder#decode} of a sample on the gateway's own topic, as the shared bench publishes it
 * ({@code {"value":31.27}}), or with a quality and a device time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IngestDecodeBenchmark {
  private static final int PAYLOADS = 1024;

  @Param({"bench", "full"})
  public String shape;

  private final byte[][] payloads = new byte[PAYLOADS][];
  private final Instant at = Instant.parse("2026-12-07T10:00:00Z");
  private IngestDecoder decoder;
  private String topic;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    Problems problems = new Problems();
    Registry registry =
        RegistryLoader.load(
            "points.yaml",
            "points:\n  bench.z1.temp: { type: number, unit: degC, direction: in,"
                + " deadband: 0.1, range: [-40, 80] }\n",
            problems);
    if (!problems.sorted().isEmpty()) {
      throw new IllegalStateException(problems.sorted().toString());
    }
    Topics topics = new Topics("site");
    decoder = IngestDecoder.of(registry, topics, 65536, new ArrayList<>());
    topic = topics.point("bench.z1.temp");
    Random random = new Random(1);
    for (int i = 0; i < PAYLOADS; i++) {
      String value = String.valueOf(Math.round((20 + random.nextDouble() * 12) * 100) / 100.0);
      String json =
          shape.equals("bench")
              ? "{\"value\":" + value + "}"
              : "{\"value\": "
                  + value
                  + ", \"quality\": \"live\", \"ts\": \"2026-12-07T09:59:59Z\"}";
      payloads[i] = json.getBytes(StandardCharsets.UTF_8);
    }
  }

  @Benchmark
  public IngestDecoder.Decoded decode() {
    byte[] payload = payloads[next];
    next = (next + 1) & (PAYLOADS - 1);
    return decoder.decode(topic, payload, at);
  }
}
