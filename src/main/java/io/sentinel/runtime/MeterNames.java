package io.sentinel.runtime;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;

/**
 * Keeps {@code /q/metrics} in Prometheus form (docs/metrics.md): the reactive PostgreSQL client's
 * meters, which Vert.x names with an empty prefix ({@code .queue.size}, shown as {@code
 * m__queue_size}), are renamed under {@code sentinel.db.client.}; a library meter that comes
 * without help text gets one here. The Netty allocator meters, which have none and say nothing an
 * operator acts on, are off ({@code quarkus.micrometer.binder.netty.enabled=false}).
 */
@Singleton
public class MeterNames {
  static final String DB_CLIENT = "sentinel.db.client";

  /** Help text for library meters that have none. */
  private static final Map<String, String> HELP =
      Map.of(
          "http.server.active.requests", "HTTP requests being served now",
          "jvm.info", "The JVM's version and vendor (as tags)");

  @Produces
  @Singleton
  public MeterFilter names() {
    return new MeterFilter() {
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
