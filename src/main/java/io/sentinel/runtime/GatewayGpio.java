package io.sentinel.runtime;

import io.sentinel.command.Driver;
import io.sentinel.command.PlaneOutput;
import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.ControlEvent;
import io.sentinel.gpio.GpioAdapter;
import io.sentinel.gpio.GpioPlatform;
import io.sentinel.gpio.PulseCut;
import io.sentinel.mqtt.MqttDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.store.Journal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jboss.logging.Logger;

/**
 * The GPIO adapter in the gateway (docs/gpio.md): chosen by {@code sentinel.gpio.platform}, opened
 * with every output in its safe state before the engine's first pass, its inputs read only after
 * that pass (so a fail-safe interlock's command reaches its pin before any input is live), closed
 * to the safe states at a stop, and told when the engine is lost.
 */
final class GatewayGpio {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");
  private static final Duration OPEN_WITHIN = Duration.ofSeconds(10);

  private final GpioAdapter adapter;
  private final Driver driver;

  private GatewayGpio(
      GpioAdapter adapter, Journal journal, GatewayMetrics metrics, UnaryOperator<Driver> fence) {
    this.adapter = adapter;
    this.driver = fence.apply(new JournaledDriver(adapter, journal, metrics));
  }

  /**
   * The gateway's GPIO for this start, every output in its safe state before the engine's first
   * pass (docs/gpio.md); a warning where the site has GPIO points and no platform drives them.
   */
  static Optional<GatewayGpio> open(Gateway g, MqttDriver.Outcomes outcomes) {
    Optional<GatewayGpio> gpio =
        open(
            g.config.gpio().platform(),
            g.config.gpio().retry(),
            g.site.ruleSet().registry(),
            g.store.journal(),
            g::fenced,
            outcomes,
            () -> g.loop,
            g.metrics,
            g.clock);
    if (gpio.isEmpty()) {
      GatewaySite.warnAboutGpio(g.site, g.topics);
    }
    return gpio;
  }

  /**
   * The adapter of a site with GPIO points, open; empty when the site has none or the platform is
   * {@code off}.
   *
   * @param fence wraps the adapter's driver (the core lock's fence: docs/standby.md)
   * @param loop the engine loop of this start (samples, outcomes and readiness go there)
   */
  static Optional<GatewayGpio> open(
      String platformSetting,
      Duration retry,
      Registry registry,
      Journal journal,
      UnaryOperator<Driver> fence,
      MqttDriver.Outcomes outcomes,
      Supplier<EngineLoop> loop,
      GatewayMetrics metrics,
      InstantSource clock) {
    if (!GpioAdapter.anyGpio(registry)) {
      return Optional.empty();
    }
    Optional<GpioPlatform.Choice> choice = GpioPlatform.choose(platformSetting, Path.of("/dev"));
    if (choice.isEmpty()) {
      return Optional.empty();
    }
    GatewayGpio[] self = {null};
    GpioAdapter adapter =
        new GpioAdapter(
            registry,
            choice.get().platform(),
            new GpioAdapter.Listener() {
              @Override
              public void delivered(String commandId) {
                outcomes.delivered(commandId);
              }

              @Override
              public void failed(String commandId, Throwable cause) {
                outcomes.failed(commandId, cause);
              }

              @Override
              public void readinessChanged() {
                EngineLoop l = loop.get();
                if (l != null && self[0] != null) {
                  l.readinessChanged(self[0].driver);
                }
              }

              @Override
              public void pulseCut(PulseCut cut) {
                // Journaled in control_events and published on events/pulse-cut, like the
                // command plane's events.
                EngineLoop l = loop.get();
                if (l != null) {
                  ControlEvent e =
                      new ControlEvent(PulseCut.KIND, cut.pointId(), cut.message(), cut.at());
                  l.onContext(() -> new PlaneOutput(List.of(e), List.of()));
                }
              }

              @Override
              public void sample(Sample sample, String source) {
                EngineLoop l = loop.get();
                if (l != null) {
                  l.offer(sample, source, Optional.empty());
                  metrics.accepted(1);
                }
              }
            },
            clock,
            retry);
    self[0] = new GatewayGpio(adapter, journal, metrics, fence);
    LOG.infof(
        "SEN-GPIO-001 GPIO on Pi4J's %s platform (%s)%s",
        choice.get().platform().wireName(),
        choice.get().reason(),
        choice.get().platform() == GpioPlatform.MOCK
            ? ": no pin of this machine is read or driven"
            : "");
    adapter.open(OPEN_WITHIN);
    return Optional.of(self[0]);
  }

  /** The driver of a point whose commands are the adapter's, if it is one. */
  Optional<Driver> driverOf(PointSpec spec) {
    return GpioAdapter.drives(spec) ? Optional.of(driver) : Optional.empty();
  }

  /**
   * After the engine's first pass (its fail-safe commands handed over): the inputs start, and the
   * engine is watched ({@code onLost}: it stopped answering).
   */
  void engineStarted(EngineLoop loop, Duration engineTimeout, Runnable onLost) {
    loop.inspect(plane -> null).thenRun(adapter::startInputs);
    adapter.watchEngine(() -> loop.inspect(plane -> null), engineTimeout, onLost);
  }

  void engineLost(String why) {
    adapter.engineLost(why);
  }

  void close() {
    adapter.close();
  }

  GpioAdapter adapter() {
    return adapter;
  }

  /**
   * The heartbeat output, when configured, toggled at the loop's turns while {@code mayDrive}: with
   * a standby, only while the fence is open, so a core whose lock is unconfirmed gives the relay no
   * edge, whatever its threads still get to run (docs/standby.md).
   */
  static io.sentinel.gpio.HeartbeatPin startHeartbeat(
      SentinelConfig config, EngineLoop loop, BooleanSupplier mayDrive) {
    io.sentinel.gpio.HeartbeatPin pin = openHeartbeat(config);
    if (pin != null) {
      loop.heartbeat(
          Optional.of(config.heartbeat().every()),
          () -> {
            if (mayDrive.getAsBoolean()) {
              pin.toggle();
            }
          });
    }
    return pin;
  }

  /** The heartbeat output, when {@code sentinel.heartbeat.pin} names one (docs/standby.md). */
  private static io.sentinel.gpio.HeartbeatPin openHeartbeat(SentinelConfig config) {
    Optional<Integer> heartbeatPin = config.heartbeat().pin();
    if (heartbeatPin.isEmpty()) {
      return null;
    }
    io.sentinel.gpio.GpioPlatform.Choice platform =
        io.sentinel.gpio.GpioPlatform.choose(config.gpio().platform(), Path.of("/dev"))
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "SEN-GPIO-015 sentinel.heartbeat.pin is "
                            + heartbeatPin.get()
                            + " but sentinel.gpio.platform is off: no pin to toggle"));
    io.sentinel.gpio.HeartbeatPin h =
        io.sentinel.gpio.HeartbeatPin.open(platform.platform(), heartbeatPin.get());
    LOG.infof(
        "SEN-GPIO-013 heartbeat on pin %d (%s): toggled every %d ms while the engine turns over",
        h.pin(), platform.platform().wireName(), config.heartbeat().every().toMillis());
    return h;
  }
}
