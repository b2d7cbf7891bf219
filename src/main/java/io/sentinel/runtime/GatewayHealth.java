package io.sentinel.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /q/health}: live while the engine runs (or this gateway stands by; its role in {@code
 * sentinel-engine}'s data); ready while the MQTT session is up and the journal writes to
 * PostgreSQL.
 */
final class GatewayHealth {
  private GatewayHealth() {}

  @Liveness
  @ApplicationScoped
  static class Engine implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      // A standby runs no engine and is well while it waits for the core lock (docs/standby.md).
      String role = gateway.role();
      return HealthCheckResponse.named("sentinel-engine")
          .status(gateway.running() || role.equals("standby"))
          .withData("role", role)
          .withData("epoch", gateway.epoch())
          .build();
    }
  }

  @Readiness
  @ApplicationScoped
  static class Broker implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      return HealthCheckResponse.named("sentinel-mqtt")
          .status(gateway.connected())
          .withData("broker", String.valueOf(gateway.brokerUrl()))
          .build();
    }
  }

  /**
   * Down while the store is closed or PostgreSQL does not take the journal's batches (the local
   * journal holds them meanwhile): says why and how far behind it is.
   */
  @Readiness
  @ApplicationScoped
  static class Database implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      var b = HealthCheckResponse.named("sentinel-database").status(gateway.databaseReady());
      gateway
          .journal()
          .ifPresent(
              j -> {
                var s = j.stats();
                b.withData("journal_bytes", s.bytes())
                    .withData("behind_seconds", Math.round(s.feedLagSeconds()))
                    .withData("dead_letters", s.deadLetters());
                if (!j.feedError().isEmpty()) {
                  b.withData("error", j.feedError());
                }
              });
      return b.build();
    }
  }

  /**
   * Down when the journal cannot move for {@code sentinel.journal.stuck-after}: its disk fails, it
   * is at its bound (nothing is acknowledged, so no new input comes in), or PostgreSQL answers and
   * takes nothing; says why and for how long. Up again as soon as it moves. PostgreSQL merely away,
   * with room in the journal, is readiness, not liveness: the journal holds (docs/persistence.md).
   */
  @Liveness
  @ApplicationScoped
  static class JournalMoves implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      var stall = gateway.journal().flatMap(j -> j.stall());
      var b = HealthCheckResponse.named("sentinel-journal").status(stall.isEmpty());
      stall.ifPresent(
          s -> b.withData("reason", s.reason()).withData("for_seconds", s.lasting().toSeconds()));
      return b.build();
    }
  }
}
