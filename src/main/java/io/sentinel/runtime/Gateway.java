package io.sentinel.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.sentinel.command.CommandPlane;
import io.sentinel.command.CommandSettings;
import io.sentinel.command.Driver;
import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.RestartState;
import io.sentinel.engine.StartMode;
import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.LiveFacts;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.MqttDriver;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.store.Journal;
import io.sentinel.store.PassRecorder;
import io.sentinel.store.Store;
import io.sentinel.wire.Payloads;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The gateway's lifecycle, started with the application (so a {@code @QuarkusTest} boots the real
 * thing): load and validate the site, choose the broker, open the store, open GPIO, start the
 * engine loop, connect to MQTT; and stop in the reverse order. Each step is a collaborator of this
 * package. A site with errors does not start: every problem is logged and start fails.
 * Configuration: {@link SentinelConfig} (docs/configuration.md).
 */
@ApplicationScoped
public class Gateway {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** How often the derived state and the latches are kept while the engine runs. */
  private static final Duration SNAPSHOT_EVERY = Duration.ofSeconds(10);

  @Inject Vertx vertx;
  @Inject MeterRegistry meterRegistry;
  @Inject SentinelConfig config;
  @Inject PassTap passTap;

  final InstantSource clock = InstantSource.system();
  private volatile io.sentinel.gpio.HeartbeatPin heartbeat;
  private volatile CoreRole role;
  CoreStatus coreStatus;
  volatile long epoch;
  private Site site;
  private Topics topics;
  private Instant started;
  private GatewayBroker broker;
  private MqttConnection mqtt;
  private MqttDriver driver;
  private Driver commandDriver;
  volatile GatewayGpio gpio;
  volatile Store store;

  /** What the broker may deliver again after a crash, matched before it is taken (docs/live.md). */
  private volatile Redelivery redelivery = Redelivery.NONE;

  private PassRecorder recorder;
  private volatile RevisionGate.Active active;
  private RulesetTopic rulesetTopic;
  private volatile ShadowRun shadow;
  private HaBridge homeAssistant;
  private AuditAnchoring anchoring;
  private volatile EngineLoop loop;
  private volatile IntakeBound intake;
  private MqttIngest ingest;
  private GatewayMetrics metrics;
  private volatile boolean running;
  private Optional<SystemdNotify> notifier = Optional.empty();
  private final AtomicLong sessions = new AtomicLong();

  void onStart(@Observes StartupEvent event) {
    try {
      if (config.standby().enabled()) {
        role = GatewayStandby.contend(this);
        return;
      }
      start();
    } catch (RuntimeException e) {
      // Said here, once and plainly: the command line's exit handler does not print the failure.
      LOG.error(e.getMessage());
      stop();
      throw e;
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    stop();
    CoreRole r = role;
    if (r != null) {
      r.close(); // after the outputs went safe: a standby takes over from there
      role = null;
      coreStatus.close();
    }
  }

  /** The heartbeat output of this start, for tests (its mock pin). */
  public Optional<io.sentinel.gpio.HeartbeatPin> heartbeat() {
    return Optional.ofNullable(heartbeat);
  }

  /** Without a standby the driver itself; with one, a driver that sends only under the lock. */
  private Driver fenced(Driver d) {
    CoreRole r = role;
    return r == null ? d : r.fence(d);
  }

  /** This core's role: {@code single} without a standby, else {@code active} or {@code standby}. */
  public String role() {
    CoreRole r = role;
    return r == null ? "single" : r.holds() ? "active" : "standby";
  }

  /** The epoch of this core's tenure (0 without a standby). */
  public long epoch() {
    return epoch;
  }

  void start() {
    started = clock.instant();
    Site.Loaded loaded = GatewaySite.load(config.siteDir());
    site = loaded.site().orElseThrow();
    topics = new Topics(config.site().filter(s -> !s.isBlank()).orElse(site.name()));
    IngestDecoder decoder =
        GatewaySite.decoder(
            site,
            topics,
            config.ingest().maxPayloadBytes(),
            !config.gpio().platform().trim().equalsIgnoreCase("off"),
            config.siteDir());
    Optional<RevisionKeys> keys =
        GatewaySite.trustedKeys(config.ruleset().keysFile(), site, topics);
    registerMetrics();
    broker = GatewayBroker.choose(config.mqtt(), topics);
    homeAssistant =
        GatewayDevices.homeAssistant(config, site, topics, () -> loop, () -> mqtt, clock)
            .orElse(null);
    mqtt = connection(decoder);
    MqttDriver.Outcomes outcomes = new CommandOutcomes(metrics, () -> store, () -> loop, clock);
    driver = new MqttDriver(mqtt, topics, outcomes);
    store = GatewayStore.open(config, vertx, () -> loop, clock);
    redelivery = Redelivery.from(store::redeliveryTail);
    JournalMetrics.register(meterRegistry, store.journal());
    active = GatewayStore.startingRevision(store, site, topics, loaded.problems(), started);
    commandDriver = fenced(new JournaledDriver(driver, store.journal(), metrics));
    openGpio(outcomes);
    startEngine();
    RevisionGate.Trust trust =
        new RevisionGate.Trust(keys, site.basis().settings().allowUnsignedRevisions());
    shadow = shadowRun(trust);
    rulesetTopic =
        new RulesetTopic(
            site.basis(),
            topics,
            trust,
            active,
            loop,
            mqtt,
            recorder,
            store.revisions(),
            clock,
            started,
            metrics,
            shadow);
    anchoring =
        new AuditAnchoring(
            topics.site(),
            topics.auditAnchor(),
            store.anchors(),
            mqtt,
            clock,
            config.audit().anchorRecords(),
            config.audit().anchorInterval(),
            AuditAnchoring.key(
                config
                    .audit()
                    .anchorKey()
                    .filter(k -> !k.isBlank())
                    .map(Path::of)
                    .orElseGet(() -> config.home().resolve("audit-anchor.key"))));
    loop.start();
    heartbeat = GatewayGpio.openHeartbeat(config);
    if (heartbeat != null) {
      io.sentinel.gpio.HeartbeatPin pin = heartbeat;
      // With a standby, only while the fence is open: a core whose lock is unconfirmed gives the
      // relay no edge, whatever its threads still get to run (docs/standby.md).
      loop.heartbeat(
          Optional.of(config.heartbeat().every()),
          () -> {
            CoreRole r = role;
            if (r == null || r.holds()) {
              pin.toggle();
            }
          });
    }
    notifySystemd();
    if (gpio != null) {
      gpio.engineStarted(loop, config.gpio().engineTimeout(), () -> running = false);
    }
    if (homeAssistant != null) {
      homeAssistant.announce(mqtt);
    }
    mqtt.start();
    anchoring.start();
    running = true;
    LOG.infof(
        "SEN-002 site %s (%s)%s: revision %d, %d points, %d rules, every rule in warmup, fail-safe"
            + " interlocks asserted; MQTT %s as sentinel/%s/",
        topics.site(),
        site.dir(),
        role == null ? "" : ", active core, epoch " + epoch,
        active.revision(),
        active.ruleSet().registry().points().size(),
        active.ruleSet().rules().size(),
        mqtt.redacted(),
        topics.site());
  }

  /** A shadow revision beside the active set (docs/shadow.md): the recorded one runs again. */
  private ShadowRun shadowRun(RevisionGate.Trust trust) {
    ShadowRun s =
        new ShadowRun(
            site.basis(),
            topics,
            trust,
            () -> loop,
            mqtt,
            () ->
                Optional.ofNullable(store)
                    .filter(st -> !st.journal().degraded())
                    .map(Store::shadows),
            clock,
            limits(),
            commandSettings());
    loop.follow(s);
    s.restore(active);
    return s;
  }

  /** The shadow revision's summary as {@code GET /api/v1/shadow} gives it. */
  public io.vertx.core.json.JsonObject shadowSummary() {
    ShadowRun s = shadow;
    if (s == null) {
      throw new IllegalStateException("the gateway is not running");
    }
    return s.summary();
  }

  /** READY and the watchdog's beats, when systemd started this process (Type=notify). */
  private void notifySystemd() {
    notifier = SystemdNotify.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
    notifier.ifPresent(
        n ->
            loop.heartbeat(
                n.beatEvery(),
                () -> n.beat("site " + topics.site() + ", revision " + activeRevision())));
  }

  private void registerMetrics() {
    metrics = new GatewayMetrics(meterRegistry);
  }

  private MqttConnection connection(IngestDecoder decoder) {
    Set<String> filters = new LinkedHashSet<>();
    filters.add(topics.pointsFilter());
    filters.addAll(decoder.thirdPartyTopics());
    filters.add(topics.ruleset());
    ingest =
        new MqttIngest(
            topics,
            decoder,
            new LiveFacts(site.ruleSet().registry(), config.ingest().maxFutureSkew()),
            () -> loop,
            () -> rulesetTopic,
            () -> mqtt,
            () -> redelivery,
            metrics,
            clock);
    MqttConnection.Inbound inbound = ingest;
    if (homeAssistant != null) {
      filters.add(homeAssistant.commandFilter());
      inbound = homeAssistant.routing(inbound);
    }
    return new MqttConnection(
        broker.settings(config.mqtt(), GatewayBroker.coreClientId(config, topics.site())),
        topics.status(),
        () -> Payloads.status("online", Optional.of(activeRevision()), started),
        Payloads.status("offline", Optional.empty(), started),
        filters,
        inbound,
        new MqttConnection.Listener() {
          @Override
          public void connected() {
            metrics.mqttConnected(sessions.getAndIncrement() == 0);
            readinessChanged();
          }

          @Override
          public void disconnected(String cause) {
            readinessChanged();
          }

          @Override
          public void draining(boolean draining) {
            EngineLoop l = loop;
            if (l != null) {
              l.draining(draining);
            }
          }
        },
        topics.root()
            + "ingest/marker/"
            + GatewayBroker.coreClientId(config, topics.site()).replaceAll("[+#/]", "_"));
  }

  /** Every GPIO output in its safe state before the engine's first pass (docs/gpio.md). */
  private void openGpio(MqttDriver.Outcomes outcomes) {
    gpio =
        GatewayGpio.open(
                config.gpio().platform(),
                config.gpio().retry(),
                site.ruleSet().registry(),
                store.journal(),
                this::fenced,
                outcomes,
                () -> loop,
                metrics,
                clock)
            .orElse(null);
    if (gpio == null) {
      GatewaySite.warnAboutGpio(site, topics);
    }
  }

  /** The cold engine with the last state restored, its command plane, and the loop around them. */
  private void startEngine() {
    Engine engine = new Engine(active.ruleSet(), started, StartMode.COLD, limits());
    RestartState kept = GatewayStore.restore(store, engine, active.revision());
    recorder =
        new PassRecorder(
            store.journal(), engine, active.ruleSet(), active.revision(), SNAPSHOT_EVERY);
    recorder.restored(kept.overrides());
    // A command id names the holder's epoch (docs/standby.md): e7.<start> /<point>/.../
    String commandIds =
        (role == null ? "" : "e" + epoch + ".") + Long.toString(started.toEpochMilli(), 36);
    if (role != null) {
      recorder.tenure(GatewayBroker.coreClientId(config, topics.site()), epoch, commandIds);
    }
    CommandPlane plane =
        new CommandPlane(
            active.ruleSet(),
            spec -> {
              Optional<Driver> pin = gpio == null ? Optional.empty() : gpio.driverOf(spec);
              if (pin.isPresent()) {
                return pin.get();
              }
              driver.serve(spec);
              return commandDriver;
            },
            commandSettings(),
            commandIds);
    loop =
        new EngineLoop(
            vertx,
            engine,
            plane,
            clock,
            config.ingest().lagThreshold(),
            GatewayDevices.stateTopics(
                config,
                site,
                topics,
                mqtt,
                vertx,
                new GatewayOutputs(mqtt, topics, metrics, passTap, () -> loop)),
            new JournalPassLog(
                recorder,
                store.journal(),
                JournalPassLog.started(
                    active.revision(),
                    started,
                    role == null
                        ? ""
                        : "; active core "
                            + GatewayBroker.coreClientId(config, topics.site())
                            + ", epoch "
                            + epoch)));
    loop.onFatal(this::engineLost);
    boundIntake();
    loop.onRefused(
        (sample, why) -> {
          metrics.rejected(io.sentinel.mqtt.RejectReason.INVALID_SAMPLE);
          LOG.warnf(
              "SEN-101 a sample the pass cannot hold was dropped alone (counted in"
                  + " sentinel_ingest_rejected_total): %s",
              io.sentinel.door.Door.printable(why, 300));
        });
  }

  /** The intake bound (docs/runtime.md, "Overload"): checked as messages come and go. */
  private void boundIntake() {
    MqttConnection connection = mqtt;
    IntakeBound bound =
        new IntakeBound(
            config
                .ingest()
                .maxHeld()
                .orElse(IntakeBound.defaultMax(Runtime.getRuntime().maxMemory())),
            this::unacknowledged,
            connection::pauseReading,
            (event, self) -> {
              EngineLoop l = loop;
              if (l != null) {
                l.onContext(
                    () -> new io.sentinel.command.PlaneOutput(List.of(event), List.of(self)));
              }
            },
            clock);
    intake = bound;
    ingest.onTaken(bound::check);
    loop.onReleased(bound::check);
    loop.heartbeat(Optional.of(Duration.ofSeconds(1)), bound::tick);
  }

  /** The intake bound, for metrics. */
  public IntakeBound intake() {
    return intake;
  }

  private EngineLimits limits() {
    SentinelConfig.Limits l = config.limits();
    return new EngineLimits(
        l.evaluationsPerRule(), l.evaluationWindow(), l.claimChangesPerPoint(), l.claimWindow());
  }

  private CommandSettings commandSettings() {
    return new CommandSettings(
        config.command().interlockBound(), config.command().convergenceBound());
  }

  private synchronized void stop() {
    notifier.ifPresent(SystemdNotify::stopping);
    stopCore();
  }

  /** Everything of this start stopped, outputs in their safe states; the core role stays. */
  synchronized void stopCore() {
    running = false;
    notifier = Optional.empty();
    if (rulesetTopic != null) {
      rulesetTopic.close();
      rulesetTopic = null;
    }
    if (shadow != null) {
      shadow.close();
      shadow = null;
    }
    if (loop != null) {
      stopEngine();
    }
    if (anchoring != null) {
      anchoring.close(); // the last durable head anchored, before MQTT and the store go
      anchoring = null;
    }
    if (heartbeat != null) {
      heartbeat.close(); // no more edges: the relay drops
      heartbeat = null;
    }
    if (gpio != null) {
      gpio.close(); // every output to its safe state, after the engine's last pass
      gpio = null;
    }
    if (mqtt != null) {
      if (mqtt.stop(Duration.ofSeconds(2)) && store != null) {
        // Every PUBACK left before the DISCONNECT: nothing logged so far is delivered again.
        store.journal().offerStopped(clock.instant());
      }
      mqtt = null;
    }
    if (broker != null) {
      broker.close();
      broker = null;
    }
    if (store != null) {
      closeStore();
    }
  }

  private void stopEngine() {
    // The last snapshot is taken on the engine's thread, after its last pass.
    EngineLoop stopping = loop;
    PassRecorder last = recorder;
    loop.stop(
            () -> {
              if (last != null) {
                last.snapshot(clock.instant());
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
    if (store != null && mqtt != null) {
      store.journal().flush(Duration.ofSeconds(5));
      stopping.acknowledgeDurable().orTimeout(2, TimeUnit.SECONDS).exceptionally(e -> null).join();
    }
    loop = null;
  }

  private void closeStore() {
    try {
      store.close();
    } catch (IOException | RuntimeException e) {
      LOG.errorf("SEN-DB-055 the store did not close cleanly: %s", e.getMessage());
    }
    store = null;
    recorder = null;
  }

  /**
   * Stops the gateway and starts it again from the site folder and the store, as a new process
   * would: every rule back in warmup, last values restored. Tests use it to restart in one JVM.
   */
  public synchronized void restart() {
    restart(() -> {});
  }

  /**
   * {@link #restart()}, with {@code whileStopped} run in between (what happens while it is down).
   */
  public synchronized void restart(Runnable whileStopped) {
    stop();
    whileStopped.run();
    start();
  }

  /** The engine failed for good: outputs to their safe states, and liveness says so. */
  private void engineLost(Throwable cause) {
    running = false;
    GatewayGpio g = gpio;
    if (g != null) {
      g.engineLost("the engine failed: " + cause);
    }
  }

  /** The GPIO adapter, when this start has one (tests reach the mock pins through it). */
  public Optional<io.sentinel.gpio.GpioAdapter> gpio() {
    return Optional.ofNullable(gpio).map(GatewayGpio::adapter);
  }

  /** MQTT's connection came or went: the command plane hears it (not once the gateway stopped). */
  private void readinessChanged() {
    EngineLoop l = loop;
    if (l != null) {
      l.readinessChanged(commandDriver);
    }
  }

  public boolean running() {
    return running;
  }

  public boolean connected() {
    return mqtt != null && mqtt.connected();
  }

  public Topics topics() {
    return topics;
  }

  /** The site's name, as its topics and revisions carry it. */
  public String siteName() {
    return topics.site();
  }

  public Site site() {
    return site;
  }

  /** The broker's address, credentials left out (it is shown on /q/health). */
  public String brokerUrl() {
    MqttConnection m = mqtt;
    return m == null ? null : m.redacted();
  }

  /** The revision running now. */
  public long activeRevision() {
    RulesetTopic r = rulesetTopic;
    RevisionGate.Active a = active;
    return r != null ? r.active().revision() : a != null ? a.revision() : 0;
  }

  public EngineLoop loop() {
    return loop;
  }

  /** MQTT messages whose acknowledgement waits for the journal (sentinel_ingest_unacknowledged). */
  public long unacknowledged() {
    EngineLoop l = loop;
    return l == null ? 0 : l.unacknowledged();
  }

  /** The store's reader of the log (the HTTP API's audit endpoints). */
  public io.sentinel.store.History history() {
    Store s = store;
    if (s == null) {
      throw new IllegalStateException("the store is not open");
    }
    return s.history();
  }

  /** Whether the store is open and PostgreSQL takes the journal's batches. */
  public boolean databaseReady() {
    Store s = store;
    return s != null && !s.journal().degraded();
  }

  /** The journal, while the store is open (health and metrics read it). */
  public Optional<Journal> journal() {
    Store s = store;
    return s == null ? Optional.empty() : Optional.of(s.journal());
  }

  /** Rejections counted since start, all reasons. */
  public double rejectedTotal() {
    return metrics.rejectedTotal();
  }

  /**
   * A refusal at another door than MQTT's (an HTTP body or parameter): counted under the same
   * reasons, in {@code sentinel_ingest_rejected_total} (docs/hostile-input.md).
   */
  public void refusedAtDoor(io.sentinel.door.Flaw flaw) {
    metrics.rejected(io.sentinel.mqtt.RejectReason.of(flaw));
  }
}
