package io.sentinel.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.sentinel.command.Driver;
import io.sentinel.config.SentinelConfig;
import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.MqttDriver;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.store.Journal;
import io.sentinel.store.PassRecorder;
import io.sentinel.store.Store;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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

  @Inject Vertx vertx;
  @Inject MeterRegistry meterRegistry;
  @Inject SentinelConfig config;
  @Inject PassTap passTap;

  final InstantSource clock = InstantSource.system();
  private volatile io.sentinel.gpio.HeartbeatPin heartbeat;
  volatile CoreRole role;
  CoreStatus coreStatus;
  volatile long epoch;
  Site site;
  Topics topics;
  Instant started;
  GatewayBroker broker;
  MqttConnection mqtt;
  MqttDriver driver;
  Driver commandDriver;
  volatile GatewayGpio gpio;
  volatile Store store;

  PassRecorder recorder;
  volatile RevisionGate.Active active;
  RulesetTopic rulesetTopic;
  private volatile ShadowRun shadow;
  HaBridge homeAssistant;
  private AuditAnchoring anchoring;
  volatile EngineLoop loop;

  /** The engine's context; the MQTT client reads and acknowledges on its event loop. */
  io.vertx.core.Context engineContext;

  volatile IntakeBound intake;
  MqttIngest ingest;
  GatewayMetrics metrics;
  private volatile boolean running;
  private Optional<SystemdNotify> notifier = Optional.empty();
  final AtomicLong sessions = new AtomicLong();

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

  /**
   * Whether the MQTT client reads and acknowledges on the engine's event loop (docs/runtime.md,
   * "One event loop"); false while it is not connected.
   */
  public boolean mqttOnEngineLoop() {
    MqttConnection m = mqtt;
    io.vertx.core.Context c = engineContext;
    return m != null
        && c != null
        && m.readsOn(((io.vertx.core.impl.ContextInternal) c).nettyEventLoop());
  }

  /** The heartbeat output of this start, for tests (its mock pin). */
  public Optional<io.sentinel.gpio.HeartbeatPin> heartbeat() {
    return Optional.ofNullable(heartbeat);
  }

  /** Without a standby the driver itself; with one, a driver that sends only under the lock. */
  Driver fenced(Driver d) {
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
    engineContext = vertx.getOrCreateContext();
    CompletableFuture<Store> opening = GatewayStore.opening(config, vertx, () -> loop, clock);
    Site.Loaded loaded;
    Optional<RevisionKeys> keys;
    try {
      loaded = GatewaySite.load(config.siteDir());
      site = loaded.site().orElseThrow();
      topics = new Topics(config.site().filter(s -> !s.isBlank()).orElse(site.name()));
      IngestDecoder decoder =
          GatewaySite.decoder(
              site,
              topics,
              config.ingest().maxPayloadBytes(),
              !config.gpio().platform().trim().equalsIgnoreCase("off"),
              config.siteDir());
      keys = GatewaySite.trustedKeys(config.ruleset().keysFile(), site, topics);
      metrics = new GatewayMetrics(meterRegistry);
      broker = GatewayBroker.choose(config.mqtt(), topics);
      homeAssistant =
          GatewayDevices.homeAssistant(config, site, topics, () -> loop, () -> mqtt, clock)
              .orElse(null);
      mqtt = GatewayMqtt.connection(this, decoder);
    } catch (RuntimeException | Error e) {
      GatewayStore.abandon(opening);
      throw e;
    }
    MqttDriver.Outcomes outcomes = new CommandOutcomes(metrics, () -> store, () -> loop, clock);
    driver = new MqttDriver(mqtt, topics, outcomes);
    store = GatewayStore.opened(opening);
    ingest.matchAgainst(Redelivery.from(store::redeliveryTail));
    JournalMetrics.register(meterRegistry, store.journal());
    store.journal().syncAtMostEvery(broker.journalSyncEvery(config));
    active = GatewayStore.startingRevision(store, site, topics, loaded.problems(), started);
    commandDriver = fenced(new JournaledDriver(driver, store.journal(), metrics));
    gpio = GatewayGpio.open(this, outcomes).orElse(null);
    GatewayEngine.start(this);
    RevisionGate.Trust trust =
        new RevisionGate.Trust(keys, site.basis().settings().allowUnsignedRevisions());
    shadow = GatewayEngine.shadow(this, trust);
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
    anchoring = AuditAnchoring.of(config, topics, store.anchors(), mqtt, clock);
    loop.start();
    heartbeat =
        GatewayGpio.startHeartbeat(
            config,
            loop,
            () -> {
              CoreRole r = role;
              return r == null || r.holds();
            });
    notifier = SystemdNotify.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
    notifier.ifPresent(
        n -> n.beatWith(loop, () -> "site " + topics.site() + ", revision " + activeRevision()));
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

  /** The shadow revision's summary as {@code GET /api/v1/shadow} gives it. */
  public io.vertx.core.json.JsonObject shadowSummary() {
    ShadowRun s = shadow;
    if (s == null) {
      throw new IllegalStateException("the gateway is not running");
    }
    return s.summary();
  }

  /** The intake bound, for metrics (docs/runtime.md, "Overload"). */
  public IntakeBound intake() {
    return intake;
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
      GatewayEngine.stop(this);
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
  void engineLost(Throwable cause) {
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
  void readinessChanged() {
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

  /**
   * MQTT messages acknowledged to the client and not yet acted on by it (sentinel_ingest_unsettled;
   * the intake bound counts them).
   */
  public long unsettled() {
    MqttConnection m = mqtt;
    return m == null ? 0 : m.unsettled();
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
