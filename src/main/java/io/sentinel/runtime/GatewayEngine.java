package io.sentinel.runtime;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.CommandSettings;
import io.sentinel.command.Driver;
import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.RestartState;
import io.sentinel.engine.StartMode;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.store.PassRecorder;
import io.sentinel.store.Store;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * {@link Gateway}'s engine: at start, the cold engine with the last state restored, its recorder,
 * its command plane and the loop around them, and the shadow revision that follows it; at stop, the
 * last pass, the last snapshot and the acknowledgements of what is durable.
 */
final class GatewayEngine {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** How often the derived state and the latches are kept while the engine runs. */
  private static final Duration SNAPSHOT_EVERY = Duration.ofSeconds(10);

  private GatewayEngine() {}

  /** The cold engine with the last state restored, its command plane, and the loop around them. */
  static void start(Gateway g) {
    Engine engine = new Engine(g.active.ruleSet(), g.started, StartMode.COLD, limits(g.config));
    RestartState kept = GatewayStore.restore(g.store, engine, g.active.revision());
    g.recorder =
        new PassRecorder(
            g.store.journal(), engine, g.active.ruleSet(), g.active.revision(), SNAPSHOT_EVERY);
    g.recorder.restored(kept.overrides());
    // A command id names the holder's epoch (docs/standby.md): e7.<start> /<point>/.../
    String commandIds =
        (g.role == null ? "" : "e" + g.epoch + ".") + Long.toString(g.started.toEpochMilli(), 36);
    if (g.role != null) {
      g.recorder.tenure(GatewayBroker.coreClientId(g.config, g.topics.site()), g.epoch, commandIds);
    }
    CommandPlane plane =
        new CommandPlane(
            g.active.ruleSet(),
            spec -> {
              Optional<Driver> pin = g.gpio == null ? Optional.empty() : g.gpio.driverOf(spec);
              if (pin.isPresent()) {
                return pin.get();
              }
              g.driver.serve(spec);
              return g.commandDriver;
            },
            commandSettings(g.config),
            commandIds);
    g.loop =
        new EngineLoop(
            g.vertx,
            g.engineContext,
            engine,
            plane,
            g.clock,
            g.config.ingest().lagThreshold(),
            GatewayDevices.stateTopics(
                g.config,
                g.site,
                g.topics,
                g.mqtt,
                g.vertx,
                new GatewayOutputs(g.mqtt, g.topics, g.metrics, g.passTap, () -> g.loop)),
            new JournalPassLog(
                g.recorder,
                g.store.journal(),
                JournalPassLog.started(
                    g.active.revision(),
                    g.started,
                    g.role == null
                        ? ""
                        : "; active core "
                            + GatewayBroker.coreClientId(g.config, g.topics.site())
                            + ", epoch "
                            + g.epoch)));
    g.loop.onFatal(g::engineLost);
    boundIntake(g);
    g.loop.onRefused(
        (sample, why) -> {
          g.metrics.rejected(io.sentinel.mqtt.RejectReason.INVALID_SAMPLE);
          LOG.warnf(
              "SEN-101 a sample the pass cannot hold was dropped alone (counted in"
                  + " sentinel_ingest_rejected_total): %s",
              io.sentinel.door.Door.printable(why, 300));
        });
  }

  /** The intake bound (docs/runtime.md, "Overload"): checked as messages come and go. */
  private static void boundIntake(Gateway g) {
    MqttConnection connection = g.mqtt;
    IntakeBound bound =
        new IntakeBound(
            g.config
                .ingest()
                .maxHeld()
                .orElse(IntakeBound.defaultMax(Runtime.getRuntime().maxMemory())),
            // Decoded by the MQTT client and not yet handed over, waiting for the journal, and
            // acknowledged but not yet acted on by the client: the broker counts all three in
            // flight, and all three are in memory.
            () -> connection.undelivered() + g.unacknowledged() + connection.unsettled(),
            connection::pauseReading,
            (event, self) -> {
              EngineLoop l = g.loop;
              if (l != null) {
                l.onContext(
                    () -> new io.sentinel.command.PlaneOutput(List.of(event), List.of(self)));
              }
            },
            g.clock);
    g.intake = bound;
    g.ingest.onTaken(bound::check);
    connection.onSettled(bound::check);
    connection.onDecoded(bound::check);
    g.loop.onReleased(bound::check);
    g.loop.heartbeat(Optional.of(Duration.ofSeconds(1)), bound::tick);
  }

  /** The loop's last pass and snapshot; what is durable acknowledged to the broker. */
  static void stop(Gateway g) {
    // The last snapshot is taken on the engine's thread, after its last pass.
    EngineLoop stopping = g.loop;
    PassRecorder last = g.recorder;
    g.loop
        .stop(
            () -> {
              if (last != null) {
                last.snapshot(g.clock.instant());
              }
            })
        .orTimeout(5, TimeUnit.SECONDS)
        .exceptionally(
            e -> {
              LOG.warnf("SEN-DB-054 no final snapshot of derived state and latches: %s", e);
              return null;
            })
        .join();
    // What the last passes took is acknowledged to the broker once the store has it on disk;
    // what is still not durable after the wait is delivered again to the next session.
    if (g.store != null && g.mqtt != null) {
      g.store.journal().flush(Duration.ofSeconds(5));
      stopping.acknowledgeDurable().orTimeout(2, TimeUnit.SECONDS).exceptionally(e -> null).join();
    }
    g.loop = null;
  }

  /** A shadow revision beside the active set (docs/shadow.md): the recorded one runs again. */
  static ShadowRun shadow(Gateway g, RevisionGate.Trust trust) {
    ShadowRun s =
        new ShadowRun(
            g.site.basis(),
            g.topics,
            trust,
            () -> g.loop,
            g.mqtt,
            () ->
                Optional.ofNullable(g.store)
                    .filter(st -> !st.journal().degraded())
                    .map(Store::shadows),
            g.clock,
            limits(g.config),
            commandSettings(g.config));
    g.loop.follow(s);
    s.restore(g.active);
    return s;
  }

  static EngineLimits limits(SentinelConfig config) {
    SentinelConfig.Limits l = config.limits();
    return new EngineLimits(
        l.evaluationsPerRule(), l.evaluationWindow(), l.claimChangesPerPoint(), l.claimWindow());
  }

  static CommandSettings commandSettings(SentinelConfig config) {
    return new CommandSettings(
        config.command().interlockBound(), config.command().convergenceBound());
  }
}
