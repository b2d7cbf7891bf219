package io.sentinel.runtime;

import io.sentinel.mqtt.MqttDriver;
import io.sentinel.store.Store;
import java.time.InstantSource;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/** A command's outcome, from MQTT or a pin: counted, journaled, told to the command plane. */
final class CommandOutcomes implements MqttDriver.Outcomes {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final GatewayMetrics metrics;
  private final Supplier<Store> store;
  private final Supplier<EngineLoop> loop;
  private final InstantSource clock;

  CommandOutcomes(
      GatewayMetrics metrics,
      Supplier<Store> store,
      Supplier<EngineLoop> loop,
      InstantSource clock) {
    this.metrics = metrics;
    this.store = store;
    this.loop = loop;
    this.clock = clock;
  }

  @Override
  public void delivered(String commandId) {
    metrics.delivered(commandId);
    store.get().journal().offerCommandState(commandId, "delivered", clock.instant(), "");
    loop.get().delivered(commandId);
  }

  @Override
  public void failed(String commandId, Throwable cause) {
    metrics.failed(commandId);
    LOG.debugf("command %s not delivered: %s", commandId, cause.getMessage());
    store
        .get()
        .journal()
        .offerCommandState(
            commandId, "failed", clock.instant(), String.valueOf(cause.getMessage()));
    loop.get().failed(commandId);
  }
}
