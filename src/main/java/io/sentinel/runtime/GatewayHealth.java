package io.sentinel.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /q/health}: live while the engine runs; ready while the MQTT session is up and the journal
 * writes to PostgreSQL.
 */
final class GatewayHealth {
  private GatewayHealth() {}

  @Liveness
  @ApplicationScoped
  static class Engine implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      return HealthCheckResponse.named("sentinel-engine").status(gateway.running()).build();
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

  /** Down while the store is closed or PostgreSQL is away (the journal spools to disk). */
  @Readiness
  @ApplicationScoped
  static class Database implements HealthCheck {
    @Inject Gateway gateway;

    @Override
    public HealthCheckResponse call() {
      return HealthCheckResponse.named("sentinel-database").status(gateway.databaseReady()).build();
    }
  }
}
