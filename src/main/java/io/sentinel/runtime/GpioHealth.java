package io.sentinel.runtime;

import io.sentinel.gpio.GpioAdapter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /q/health/ready}: the GPIO platform is open and takes commands (up as well when this
 * gateway has no GPIO adapter: nothing of it to wait for).
 */
@Readiness
@ApplicationScoped
class GpioHealth implements HealthCheck {
  @Inject Gateway gateway;

  @Override
  public HealthCheckResponse call() {
    Optional<GpioAdapter> gpio = gateway.gpio();
    return HealthCheckResponse.named("sentinel-gpio")
        .status(gpio.map(GpioAdapter::ready).orElse(true))
        .withData("platform", gpio.map(g -> g.platform().wireName()).orElse("none"))
        .build();
  }
}
