package io.sentinel.runtime;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * Keeps {@code /q/metrics} in Prometheus form (docs/metrics.md): the reactive PostgreSQL client's
 * meters, which Vert.x names with an empty prefix ({@code .queue.size}, shown as {@code
 * m__queue_size}), are renamed under {@code sentinel.db.client.}, their request time made a
 * histogram ({@code sentinel_db_client_processing_seconds}: the database's latency, the journal's
 * writes most of all); a library meter that comes without help text gets one here. The Netty
 * allocator meters, which have none and say nothing an operator acts on, are off ({@code
 * quarkus.micrometer.binder.netty.enabled=false}).
 */
@Singleton
public class MeterNames {
  static final String DB_CLIENT = "sentinel.db.client";

  /** Help text for library meters that have none. */
  private static final Map<String, String> HELP =
      Map.of(
          "http.server.active.requests", "HTTP requests being served now",
          "jvm.info", "The JVM's version and vendor (as tags)");

  private static double ms(long millis) {
    return java.time.Duration.ofMillis(millis).toNanos();
  }

  @Produces
  @Singleton
  public MeterFilter names() {
    return new MeterFilter() {
      /**
       * The client's request time is the database's latency as the gateway sees it (the journal's
       * batch writes most of all): a histogram, so that a dashboard can show its tail.
       */
      @Override
      public io.micrometer.core.instrument.distribution.DistributionStatisticConfig configure(
          Meter.Id id, io.micrometer.core.instrument.distribution.DistributionStatisticConfig c) {
        if (!id.getName().equals(DB_CLIENT + ".processing")) {
          return c;
        }
        return io.micrometer.core.instrument.distribution.DistributionStatisticConfig.builder()
            .serviceLevelObjectives(
                ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(1000), ms(5000))
            .build()
            .merge(c);
      }

      @Override
      public Meter.Id map(Meter.Id id) {
        String name = id.getName();
        if (name.startsWith(".")) {
          // Vert.x's SQL client meters: one set per client; clientType=sql says whose.
          name = DB_CLIENT + name;
        }
        String help = id.getDescription();
        if (help == null || help.isBlank()) {
          help = HELP.get(name);
        }
        if (name.equals(id.getName()) && help == id.getDescription()) {
          return id;
        }
        return new Meter.Id(
            name,
            io.micrometer.core.instrument.Tags.of(id.getTags()),
            id.getBaseUnit(),
            help,
            id.getType());
      }
    };
  }
}
