package io.sentinel.runtime;

import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The reactive PostgreSQL client's own pool meters are not kept: it registers its queue gauge
 * ({@code .queue.size}, no name of ours, {@code clientType=sql}) once per connection endpoint, and
 * Micrometer warns at start about the second one. Whether the store writes to PostgreSQL or only to
 * its spool is on {@code /q/health}.
 */
@Singleton
public class SqlClientMeters {
  @Produces
  @Singleton
  MeterFilter withoutSqlClientMeters() {
    return MeterFilter.deny(id -> "sql".equals(id.getTag("clientType")));
  }
}
