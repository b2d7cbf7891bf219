package io.sentinel.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.sentinel.command.CommandPlane;
import io.sentinel.command.CommandSettings;
import io.sentinel.command.Driver;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.RestartState;
import io.sentinel.engine.StartMode;
import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.MqttDriver;
import io.sentinel.mqtt.SourcePolicy;
import io.sentinel.mqtt.Topics;
import io.sentinel.passlog.Observation;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.site.yaml.Problem;
import io.sentinel.store.Journal;
import io.sentinel.store.PassRecorder;
import io.sentinel.store.Revisions;
import io.sentinel.store.Store;
import io.sentinel.store.StoreConfig;
import io.sentinel.wire.Payloads;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The gateway, started with the application (so a {@code @QuarkusTest} boots the real thing): loads
 * and validates the site, starts the embedded broker when no broker is configured, runs the engine
 * loop and connects to MQTT. A site with errors does not start: every problem is logged and start
 * fails. Configuration and defaults: docs/runtime.md.
 */
@ApplicationScoped
public class Gateway {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** How often the derived state and the latches are kept while the engine runs. */
  private static final Duration SNAPSHOT_EVERY = Duration.ofSeconds(10);

  @Inject Vertx vertx;
  @Inject MeterRegistry meterRegistry;
  @Inject PassTap passTap;

  @ConfigProperty(name = "sentinel.site-dir", defaultValue = ".")
  String siteDir;

  @ConfigProperty(name = "sentinel.site")
  Optional<String> siteName;

  @ConfigProperty(name = "sentinel.mqtt.url")
  Optional<String> mqttUrl;

  @ConfigProperty(name = "sentinel.mqtt.client-id")
  Optional<String> clientId;

  /** The CA certificate(s), PEM, that an ssl:// broker's certificate must chain to. */
  @ConfigProperty(name = "sentinel.mqtt.ca-file")
  Optional<String> mqttCaFile;

  @ConfigProperty(name = "sentinel.mqtt.embedded-host", defaultValue = "127.0.0.1")
  String embeddedHost;

  @ConfigProperty(name = "sentinel.mqtt.embedded-port", defaultValue = "1883")
  int embeddedPort;

  @ConfigProperty(name = "sentinel.mqtt.keep-alive", defaultValue = "30s")
  Duration keepAlive;

  @ConfigProperty(name = "sentinel.mqtt.reconnect-initial", defaultValue = "500ms")
  Duration reconnectInitial;

  @ConfigProperty(name = "sentinel.mqtt.reconnect-max", defaultValue = "10s")
  Duration reconnectMax;

  @ConfigProperty(name = "sentinel.mqtt.offline-events", defaultValue = "10000")
  int offlineEvents;

  /** 5 (MQTT 5, the window is the receive maximum) or 3 (MQTT 3.1.1); docs/runtime.md. */
  @ConfigProperty(name = "sentinel.mqtt.version", defaultValue = "5")
  int mqttVersion;

  @ConfigProperty(name = "sentinel.mqtt.receive-maximum", defaultValue = "65534")
  int receiveMaximum;

  @ConfigProperty(name = "sentinel.ingest.max-payload-bytes", defaultValue = "16384")
  int maxPayloadBytes;

  @ConfigProperty(name = "sentinel.ingest.lag-threshold", defaultValue = "2s")
  Duration lagThreshold;

  @ConfigProperty(name = "sentinel.limits.evaluations-per-rule")
  Optional<Integer> evaluationsPerRule;

  @ConfigProperty(name = "sentinel.limits.evaluation-window")
  Optional<Duration> evaluationWindow;

  @ConfigProperty(name = "sentinel.limits.claim-changes-per-point")
  Optional<Integer> claimChangesPerPoint;

  @ConfigProperty(name = "sentinel.limits.claim-window")
  Optional<Duration> claimWindow;

  @ConfigProperty(name = "sentinel.command.interlock-bound")
  Optional<Duration> interlockBound;

  @ConfigProperty(name = "sentinel.command.convergence-bound")
  Optional<Duration> convergenceBound;

  @ConfigProperty(name = "sentinel.gpio.platform", defaultValue = "auto")
  String gpioPlatform;

  @ConfigProperty(name = "sentinel.gpio.retry", defaultValue = "5s")
  Duration gpioRetry;

  @ConfigProperty(name = "sentinel.gpio.engine-timeout", defaultValue = "5s")
  Duration gpioEngineTimeout;

  /** An audit anchor after this many records (docs/persistence.md, "Audit anchors"). */
  @ConfigProperty(name = "sentinel.audit.anchor-records", defaultValue = "1000")
  long anchorRecords;

  /** An audit anchor at least this often. */
  @ConfigProperty(name = "sentinel.audit.anchor-interval", defaultValue = "60s")
  Duration anchorInterval;

  /** The gateway's anchor key; unset: {@code audit-anchor.key} in the data folder. */
  @ConfigProperty(name = "sentinel.audit.anchor-key")
  Optional<String> anchorKey;

  /** The trusted keys of signed revisions; unset: {@code keys.yaml} in the site folder, if any. */
  @ConfigProperty(name = "sentinel.ruleset.keys-file")
  Optional<String> keysFile;

  /** A second gateway of the site may take over: the core lock decides which runs. */
  @ConfigProperty(name = "sentinel.standby.enabled", defaultValue = "false")
  boolean standbyEnabled;

  @ConfigProperty(name = "sentinel.standby.poll-every", defaultValue = "250ms")
  Duration standbyPollEvery;

  @ConfigProperty(name = "sentinel.standby.check-every", defaultValue = "200ms")
  Duration standbyCheckEvery;

  @ConfigProperty(name = "sentinel.standby.takeover-grace", defaultValue = "1500ms")
  Duration standbyTakeoverGrace;

  @ConfigProperty(name = "sentinel.standby.lock-timeout", defaultValue = "1s")
  Duration standbyLockTimeout;

  /** A pin toggled while the engine turns over, for a charge-pump or watchdog relay. */
  @ConfigProperty(name = "sentinel.heartbeat.pin")
  Optional<Integer> heartbeatPin;

  @ConfigProperty(name = "sentinel.heartbeat.every", defaultValue = "50ms")
  Duration heartbeatEvery;

  private final InstantSource clock = InstantSource.system();
  private volatile io.sentinel.gpio.HeartbeatPin heartbeat;
  private volatile CoreRole role;
  private CoreStatus coreStatus;
  private volatile long epoch;
  private final Map<String, AtomicLong> lastRejectionWarning = new ConcurrentHashMap<>();
  private Site site;
  private Topics topics;
  private Instant started;
  private EmbeddedBroker broker;
  private String brokerUrl;
  private MqttConnection mqtt;
  private MqttDriver driver;
  private Driver commandDriver;
  private volatile GatewayGpio gpio;
  private volatile Store store;
  private PassRecorder recorder;
  private volatile RevisionGate.Active active;
  private Optional<RevisionKeys> keys = Optional.empty();
  private RulesetTopic rulesetTopic;
  private AuditAnchoring anchoring;
  private volatile EngineLoop loop;
  private IngestDecoder decoder;
  private GatewayMetrics metrics;
  private volatile boolean running;
  private Optional<SystemdNotify> notifier = Optional.empty();
  private final AtomicLong sessions = new AtomicLong();

  void onStart(@Observes StartupEvent event) {
    try {
      if (standbyEnabled) {
        role = contend();
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
   * With a standby configured: the core starts only once it holds the site's core lock, and stops
   * (outputs safe) when it loses it (docs/standby.md). Needs the shared database the lock lives in.
   */
  private CoreRole contend() {
    Site checked = loadSite(Path.of(siteDir)).site().orElseThrow();
    String name = siteName.filter(s -> !s.isBlank()).orElse(checked.name());
    io.sentinel.store.DbUrl db =
        StoreConfig.from(ConfigProvider.getConfig())
            .url()
            .map(io.sentinel.store.DbUrl::parse)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "SEN-STB-007 sentinel.standby.enabled needs the site's shared database:"
                            + " set sentinel.db.url / SENTINEL_DB_URL (the embedded PostgreSQL is"
                            + " this machine's alone)"));
    io.sentinel.store.Migrations.migrate(db); // the epoch table, before the first contention
    Optional<SystemdNotify> watchdog =
        SystemdNotify.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
    long[] lastBeat = {0};
    String holder = coreClientId(name);
    URI broker =
        URI.create(
            mqttUrl
                .filter(u -> !u.isBlank())
                .map(String::trim)
                .orElse("tcp://" + embeddedHost + ":" + embeddedPort));
    CoreStatus status =
        new CoreStatus(broker, holder, "sentinel/" + name + "/cores/" + holder, clock.instant());
    status.start();
    coreStatus = status;
    CoreRole r =
        new CoreRole(
            db,
            name,
            holder,
            new CoreRole.Settings(
                standbyPollEvery, standbyCheckEvery, standbyTakeoverGrace, standbyLockTimeout),
            new CoreRole.Core() {
              @Override
              public void activate(long tenure) {
                synchronized (Gateway.this) {
                  epoch = tenure;
                  status.set("active", tenure);
                  start();
                }
              }

              @Override
              public void lost(String why) {
                GatewayGpio g = gpio;
                if (g != null) {
                  g.engineLost(why); // at once, before the orderly stop below
                }
                stopCore();
                status.set("standby", 0);
              }

              @Override
              public void standingBy() {
                // A standby is up and well while it contends: READY=1 once, then the watchdog.
                long now = System.nanoTime();
                watchdog.ifPresent(
                    n -> {
                      long every = n.beatEvery().orElse(Duration.ofSeconds(10)).toNanos();
                      if (lastBeat[0] == 0 || now - lastBeat[0] >= every) {
                        lastBeat[0] = now;
                        n.beat("standby for site " + name);
                      }
                    });
              }
            });
    r.start();
    return r;
  }

  /** The MQTT client id: configured, else one per site, and with a standby one per machine. */
  private String coreClientId(String site) {
    String host =
        Optional.ofNullable(System.getenv("HOSTNAME"))
            .filter(h -> !h.isBlank())
            .orElseGet(
                () -> {
                  try {
                    return java.net.InetAddress.getLocalHost().getHostName();
                  } catch (IOException e) {
                    return Long.toString(ProcessHandle.current().pid());
                  }
                });
    return clientId
        .filter(c -> !c.isBlank())
        .orElse("sentinel-" + site + (standbyEnabled ? "-" + host : ""));
  }

  /** The heartbeat output, when {@code sentinel.heartbeat.pin} names one (docs/standby.md). */
  private io.sentinel.gpio.HeartbeatPin openHeartbeat() {
    if (heartbeatPin.isEmpty()) {
      return null;
    }
    io.sentinel.gpio.GpioPlatform.Choice platform =
        io.sentinel.gpio.GpioPlatform.choose(gpioPlatform, Path.of("/dev"))
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
        h.pin(), platform.platform().wireName(), heartbeatEvery.toMillis());
    return h;
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

  private void start() {
    started = clock.instant();
    Site.Loaded loaded = loadSite(Path.of(siteDir));
    site = loaded.site().orElseThrow();
    topics = new Topics(siteName.filter(s -> !s.isBlank()).orElse(site.name()));
    List<IngestDecoder.SourceProblem> sourceProblems = new ArrayList<>();
    // The registry of points.yaml is the one every revision runs over (docs/revisions.md); what
    // may feed which point: docs/runtime.md, "Where inputs may come from".
    decoder =
        IngestDecoder.of(
            site.basis().points(),
            new SourcePolicy(
                site.basis().derived().ordered().stream()
                    .map(io.sentinel.derived.DerivedPoint::id)
                    .collect(Collectors.toSet()),
                !gpioPlatform.trim().equalsIgnoreCase("off")),
            topics,
            maxPayloadBytes,
            sourceProblems);
    if (!sourceProblems.isEmpty()) {
      sourceProblems.forEach(
          p ->
              LOG.errorf(
                  "%s: error [SRC-001] %s: %s", p.spec().where(), p.spec().id(), p.message()));
      throw new IllegalStateException(
          "SEN-007 site " + siteDir + " has errors; the gateway does not start on it");
    }
    keys = loadKeys();
    metrics = new GatewayMetrics(meterRegistry);
    if (mqttUrl.filter(u -> !u.isBlank()).isPresent()) {
      brokerUrl = mqttUrl.get().trim();
    } else {
      try {
        broker = EmbeddedBroker.start(embeddedHost, embeddedPort);
        brokerUrl = broker.url();
        LOG.infof(
            "SEN-003 no sentinel.mqtt.url: embedded MQTT broker on %s, loopback only (anonymous,"
                + " no TLS: reachable from this machine alone; publish samples to %s<id>)",
            brokerUrl, topics.pointPrefix());
      } catch (EmbeddedBroker.PortInUseException e) {
        // A broker already listens where the embedded one would: that is the machine's broker,
        // which is what an operator who configured nothing expects the gateway to use.
        brokerUrl = "tcp://" + embeddedHost + ":" + embeddedPort;
        LOG.infof(
            "SEN-005 no sentinel.mqtt.url and %s:%d is taken: using the broker already there (set"
                + " sentinel.mqtt.url / SENTINEL_MQTT_URL to choose another)",
            embeddedHost, embeddedPort);
      }
    }
    EngineLimits defaults = EngineLimits.DEFAULT;
    EngineLimits limits =
        new EngineLimits(
            evaluationsPerRule.orElse(defaults.evaluationsPerRule()),
            evaluationWindow.orElse(defaults.evaluationWindow()),
            claimChangesPerPoint.orElse(defaults.claimChangesPerPoint()),
            claimWindow.orElse(defaults.claimWindow()));
    CommandSettings commandSettings =
        new CommandSettings(
            interlockBound.orElse(CommandSettings.DEFAULT.interlockBound()),
            convergenceBound.orElse(CommandSettings.DEFAULT.convergenceBound()));
    byte[] offline = Payloads.status("offline", Optional.empty(), started);
    Set<String> filters = new LinkedHashSet<>();
    filters.add(topics.pointsFilter());
    filters.addAll(decoder.thirdPartyTopics());
    filters.add(topics.ruleset());
    mqtt =
        new MqttConnection(
            new MqttConnection.Settings(
                URI.create(brokerUrl),
                coreClientId(topics.site()),
                keepAlive,
                reconnectInitial,
                reconnectMax,
                offlineEvents,
                // Moquette speaks 3.1.1 only (docs/runtime.md, "The embedded broker").
                broker != null ? 3 : mqttVersion,
                receiveMaximum,
                mqttCaFile.filter(f -> !f.isBlank()).map(Path::of)),
            topics.status(),
            () -> Payloads.status("online", Optional.of(activeRevision()), started),
            offline,
            filters,
            this::ingest,
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
            });
    MqttDriver.Outcomes outcomes =
        new MqttDriver.Outcomes() {
          @Override
          public void delivered(String commandId) {
            metrics.delivered(commandId);
            store.journal().offerCommandState(commandId, "delivered", clock.instant(), "");
            loop.delivered(commandId);
          }

          @Override
          public void failed(String commandId, Throwable cause) {
            metrics.failed(commandId);
            LOG.debugf("command %s not delivered: %s", commandId, cause.getMessage());
            store
                .journal()
                .offerCommandState(
                    commandId, "failed", clock.instant(), String.valueOf(cause.getMessage()));
            loop.failed(commandId);
          }
        };
    driver = new MqttDriver(mqtt, topics, outcomes);
    store = openStore();
    JournalMetrics.register(meterRegistry, store.journal());
    active = startingRevision(loaded.problems());
    commandDriver = fenced(new JournaledDriver(driver, store.journal(), metrics));
    // Every GPIO output in its safe state before the engine's first pass (docs/gpio.md).
    gpio =
        GatewayGpio.open(
                gpioPlatform,
                gpioRetry,
                site.ruleSet().registry(),
                store.journal(),
                this::fenced,
                outcomes,
                () -> loop,
                metrics,
                clock)
            .orElse(null);
    if (gpio == null) {
      warnAboutGpio();
    }
    Engine engine = new Engine(active.ruleSet(), started, StartMode.COLD, limits);
    RestartState kept = restore(engine);
    recorder =
        new PassRecorder(
            store.journal(), engine, active.ruleSet(), active.revision(), SNAPSHOT_EVERY);
    recorder.restored(kept.overrides());
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
            commandSettings,
            // A command id names the holder's epoch (docs/standby.md): e7.<start> /<point>/.../
            (role == null ? "" : "e" + epoch + ".") + Long.toString(started.toEpochMilli(), 36));
    Journal journal = store.journal();
    loop =
        new EngineLoop(
            vertx,
            engine,
            plane,
            clock,
            lagThreshold,
            new GatewayOutputs(mqtt, topics, metrics, passTap, () -> loop),
            new EngineLoop.PassLog() {
              @Override
              public long record(Instant now, List<Observation> observations, PassResult result) {
                return recorder.record(now, observations, result);
              }

              @Override
              public long durableSeq() {
                return journal.durableSeq();
              }

              @Override
              public void onDurable(Runnable moved) {
                journal.onDurable(moved);
              }

              @Override
              public void events(List<ControlEvent> events) {
                events.forEach(journal::offerEvent);
              }
            });
    loop.onFatal(this::engineLost);
    rulesetTopic =
        new RulesetTopic(
            site.basis(),
            topics,
            new RevisionGate.Trust(keys, site.basis().settings().allowUnsignedRevisions()),
            active,
            loop,
            mqtt,
            recorder,
            store.revisions(),
            clock,
            started,
            metrics);
    anchoring =
        new AuditAnchoring(
            topics.site(),
            topics.auditAnchor(),
            store.anchors(),
            mqtt,
            clock,
            anchorRecords,
            anchorInterval,
            AuditAnchoring.key(
                anchorKey
                    .filter(k -> !k.isBlank())
                    .map(Path::of)
                    .orElseGet(
                        () ->
                            StoreConfig.home(ConfigProvider.getConfig())
                                .resolve("audit-anchor.key"))));
    loop.start();
    heartbeat = openHeartbeat();
    if (heartbeat != null) {
      loop.heartbeat(Optional.of(heartbeatEvery), heartbeat::toggle);
    }
    notifier = SystemdNotify.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
    notifier.ifPresent(
        n ->
            loop.heartbeat(
                n.beatEvery(),
                () -> n.beat("site " + topics.site() + ", revision " + activeRevision())));
    if (gpio != null) {
      gpio.engineStarted(loop, gpioEngineTimeout, () -> running = false);
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

  private synchronized void stop() {
    notifier.ifPresent(SystemdNotify::stopping);
    stopCore();
  }

  /** Everything of this start stopped, outputs in their safe states; the core role stays. */
  private synchronized void stopCore() {
    running = false;
    notifier = Optional.empty();
    if (rulesetTopic != null) {
      rulesetTopic.close();
      rulesetTopic = null;
    }
    if (loop != null) {
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
        stopping
            .acknowledgeDurable()
            .orTimeout(2, TimeUnit.SECONDS)
            .exceptionally(e -> null)
            .join();
      }
      loop = null;
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
      mqtt.stop(Duration.ofSeconds(2));
      mqtt = null;
    }
    if (broker != null) {
      broker.close();
      broker = null;
    }
    if (store != null) {
      try {
        store.close();
      } catch (IOException | RuntimeException e) {
        LOG.errorf("SEN-DB-055 the store did not close cleanly: %s", e.getMessage());
      }
      store = null;
      recorder = null;
    }
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

  /** The database sentinel.db.url names, else the embedded one (docs/persistence.md). */
  private Store openStore() {
    try {
      Store opened =
          Store.open(
              StoreConfig.from(ConfigProvider.getConfig()),
              Optional.of(vertx),
              (event, self) -> {
                EngineLoop l = loop;
                if (l != null) {
                  l.alarm(event, self);
                }
              },
              clock);
      LOG.infof("SEN-DB-050 logging to %s", opened.url());
      return opened;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "SEN-DB-051 the store did not open (set sentinel.db.url / SENTINEL_DB_URL, or leave it"
              + " unset for the embedded PostgreSQL): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The revision to start from, without waiting for the broker (CONTRACT section 4): the last one
   * pushed, while the site's files are as they were when it was pushed; otherwise the files,
   * recorded as a revision (a new number when they changed). The audit trail and the snapshots name
   * it.
   */
  private RevisionGate.Active startingRevision(List<Problem> problems) {
    if (store.journal().degraded()) {
      // PostgreSQL away at start: the interlocks must not wait for it (docs/persistence.md).
      LOG.warnf(
          "SEN-DB-058 PostgreSQL is not reached (%s): starting from the site's files, unrecorded"
              + " (revision 0 in the audit trail until a start that reaches it); a pushed revision"
              + " retained on the broker arrives again",
          store.journal().feedError());
      return new RevisionGate.Active(
          0, Revisions.hashOf(Revisions.filesOf(site.dir())), site.ruleSet());
    }
    try {
      Revisions revisions = store.revisions();
      Map<String, String> files = Revisions.filesOf(site.dir());
      String filesHash = Revisions.hashOf(files);
      Optional<Revisions.Stored> last = revisions.lastActive();
      if (last.isPresent()
          && last.get().source().equals("push")
          && revisions.lastFilesHash().filter(filesHash::equals).isPresent()) {
        RevisionDocument.Checked pushed =
            RevisionDocument.check(
                topics.ruleset(),
                last.get().files().getOrDefault(Revisions.PUSHED_DOCUMENT, ""),
                site.basis(),
                topics.site());
        if (pushed.valid()) {
          LOG.infof(
              "SEN-032 starting from pushed revision %d (the site's files are unchanged since)",
              last.get().revision());
          return new RevisionGate.Active(
              last.get().revision(), pushed.contentHash(), pushed.ruleSet().orElseThrow());
        }
        LOG.warnf(
            "SEN-033 stored revision %d no longer validates against the site's files (%s):"
                + " starting from the files",
            last.get().revision(), pushed.problems().stream().map(Problem::format).toList());
      }
      Revisions.Recorded recorded =
          revisions.record(site.name(), files, problems, "files", started);
      return new RevisionGate.Active(recorded.revision(), filesHash, site.ruleSet());
    } catch (Exception e) {
      throw new IllegalStateException(
          "SEN-DB-059 the rule set could not be recorded as a revision: " + e.getMessage(), e);
    }
  }

  /**
   * The keys signed revisions must carry: {@code sentinel.ruleset.keys-file}, else {@code
   * keys.yaml} in the site folder. Without either, every pushed revision is rejected unless the
   * site allows unsigned ones; the log says which. A keys file with an error stops the start:
   * trusting fewer keys than configured would be a surprise.
   */
  private Optional<RevisionKeys> loadKeys() {
    Optional<Path> file =
        keysFile
            .filter(f -> !f.isBlank())
            .map(Path::of)
            .or(() -> Optional.of(site.dir().resolve("keys.yaml")).filter(Files::exists));
    boolean allowUnsigned = site.basis().settings().allowUnsignedRevisions();
    if (file.isEmpty()) {
      if (allowUnsigned) {
        LOG.warnf(
            "SEN-030 no trusted keys (sentinel.ruleset.keys-file, or keys.yaml in the site"
                + " folder) and allow_unsigned_revisions: true: UNSIGNED rule-set revisions on %s"
                + " are accepted; a change to an interlock or safety rule is rejected (it cannot"
                + " be reviewed without keys)",
            topics.ruleset());
      } else {
        LOG.infof(
            "SEN-029 no trusted keys (sentinel.ruleset.keys-file, or keys.yaml in the site"
                + " folder): every rule-set revision pushed on %s is rejected (docs/revisions.md:"
                + " sentinel keygen, keys.yaml; or allow_unsigned_revisions: true in site.yaml)",
            topics.ruleset());
      }
      return Optional.empty();
    }
    if (allowUnsigned) {
      LOG.warnf(
          "SEN-015 allow_unsigned_revisions: true: UNSIGNED rule-set revisions on %s are"
              + " accepted; a change to an interlock or safety rule needs a review signature",
          topics.ruleset());
    }
    if (!Files.isRegularFile(file.get())) {
      throw new IllegalStateException(
          "SEN-034 sentinel.ruleset.keys-file " + file.get() + " is not a readable file");
    }
    io.sentinel.site.yaml.Problems problems = new io.sentinel.site.yaml.Problems();
    RevisionKeys loaded = RevisionKeys.load(file.get().toString(), Site.read(file.get()), problems);
    problems.sorted().forEach(p -> LOG.error(p.format()));
    if (problems.hasErrors()) {
      throw new IllegalStateException(
          "SEN-016 the trusted keys in " + file.get() + " have errors, listed above");
    }
    LOG.infof(
        "SEN-031 rule-set revisions on %s must be signed by one of %d trusted keys from %s (%d for"
            + " review of interlock and safety rules)",
        topics.ruleset(),
        loaded.keys().size(),
        file.get(),
        loaded.keys().stream().filter(RevisionKeys.TrustedKey::review).count());
    return Optional.of(loaded);
  }

  /**
   * Last values (quality restored), derived state, latches and cooldowns into the cold engine,
   * before its first pass. What no longer fits the site is named and left out.
   */
  private RestartState restore(Engine engine) {
    try {
      RestartState kept = store.restore();
      kept.applyTo(engine).forEach(note -> LOG.warnf("SEN-DB-052 %s", note));
      LOG.infof(
          "SEN-DB-053 restored %d point values, %d cooldowns, %d latches, %d of %d operator"
              + " overrides%s (revision %d)",
          kept.values().size(),
          kept.cooldowns().size(),
          kept.latchedRules().size(),
          engine.overrides().size(),
          kept.overrides().size(),
          kept.derivedSnapshot().isPresent() ? ", derived state" : "",
          active.revision());
      return kept;
    } catch (Exception e) {
      throw new IllegalStateException(
          "SEN-DB-060 the last state could not be read from the store: " + e.getMessage(), e);
    }
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

  private static Site.Loaded loadSite(Path dir) {
    Site.Loaded loaded = Site.load(dir);
    for (Problem p : loaded.problems()) {
      if (p.isError()) {
        LOG.error(p.format());
      } else {
        LOG.warn(p.format());
      }
    }
    if (loaded.site().isPresent()) {
      return loaded;
    }
    throw new IllegalStateException(
        "SEN-001 site "
            + dir
            + " has "
            + loaded.problems().stream().filter(Problem::isError).count()
            + " error(s), listed above; the gateway does not start on a rule set it"
            + " cannot trust");
  }

  /** Until a GPIO adapter runs in this process, gpio-driven points are commanded over MQTT. */
  private void warnAboutGpio() {
    String gpio =
        site.ruleSet().registry().points().values().stream()
            .filter(p -> p.driver().orElse(null) instanceof PointDriver.Gpio)
            .map(PointSpec::id)
            .collect(Collectors.joining(", "));
    if (!gpio.isEmpty()) {
      LOG.warnf(
          "SEN-004 no GPIO driver in this process: commands for %s go to %s<id>",
          gpio, topics.root() + "commands/");
    }
  }

  /**
   * On the MQTT client's thread: decode, queue samples, count and report rejections. The message is
   * acknowledged to the broker (manual acknowledgement, {@link MqttConnection}) once the pass that
   * took its samples is durable in the journal; a message with no sample to take (rejected: counted
   * and logged here) at once.
   */
  private void ingest(String topic, byte[] payload, Runnable acknowledge) {
    EngineLoop l = loop;
    if (l == null) {
      // Stopping: not acknowledged, so the broker delivers it again to the next session.
      return;
    }
    Instant at = clock.instant();
    if (topic.equals(topics.ruleset())) {
      RulesetTopic r = rulesetTopic;
      if (r != null) {
        r.offer(payload);
      }
      // At once: the document is retained, and every start subscribes again and gets it again, so
      // holding this acknowledgement over the decision and its database writes protects nothing.
      acknowledge.run();
      return;
    }
    IngestDecoder.Decoded decoded = decoder.decode(topic, payload, at);
    String source = "mqtt:" + topic;
    l.offer(decoded.samples(), source, decoded.deviceTime(), acknowledge);
    metrics.accepted(decoded.samples().size());
    for (IngestDecoder.Rejection r : decoded.rejections()) {
      metrics.rejected(r.reason());
      mqtt.publishEvent(
          topics.events("ingest-rejected"),
          Payloads.rejection(r.reason().wireName(), r.topic(), r.pointId(), r.message(), at));
      warnRarely(r);
    }
  }

  /** A flood of bad payloads is counted in full but logged at most every 10 s per reason. */
  private void warnRarely(IngestDecoder.Rejection r) {
    AtomicLong last =
        lastRejectionWarning.computeIfAbsent(r.reason().wireName(), k -> new AtomicLong());
    long now = System.nanoTime();
    long previous = last.get();
    if ((previous == 0 || now - previous > Duration.ofSeconds(10).toNanos())
        && last.compareAndSet(previous, now)) {
      LOG.warnf(
          "SEN-006 rejected %s on %s: %s (counted in sentinel_ingest_rejected_total)",
          r.reason().wireName(), r.topic(), r.message());
    } else {
      LOG.debugf("rejected %s on %s: %s", r.reason().wireName(), r.topic(), r.message());
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
}
