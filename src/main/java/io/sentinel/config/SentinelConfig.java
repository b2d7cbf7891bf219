package io.sentinel.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Every {@code sentinel.*} key the gateway reads, its default and its meaning: the one list.
 * docs/configuration.md is generated from this file (the first sentence of each javadoc is the
 * key's meaning there); {@code ConfigurationDocTest} fails when the two differ. Each key also reads
 * from the environment: {@code sentinel.mqtt.url} as {@code SENTINEL_MQTT_URL}.
 */
@ConfigMapping(prefix = "sentinel")
public interface SentinelConfig {

  /** The site folder: points.yaml, derived.yaml, rules/, tests/ ({@code sentinel run --site}). */
  @WithDefault(".")
  Path siteDir();

  /** The topic root sentinel/SITE/; unset: the site's own name. */
  Optional<String> site();

  /** The gateway's own files (embedded database, journal), never inside a site folder. */
  @WithDefault("${user.home}/.sentinel")
  Path home();

  Mqtt mqtt();

  Ingest ingest();

  Limits limits();

  Command command();

  Gpio gpio();

  Ruleset ruleset();

  Api api();

  Db db();

  Journal journal();

  Audit audit();

  Standby standby();

  Heartbeat heartbeat();

  State state();

  HomeAssistant homeassistant();

  /** The MQTT connection (docs/runtime.md). */
  interface Mqtt {
    /** tcp://host:port or ssl://host:port (user:password@ before the host); unset: embedded. */
    Optional<String> url();

    /** Stable, so the broker keeps the session across restarts; unset: sentinel-SITE. */
    Optional<String> clientId();

    /** The address the embedded broker (Moquette) listens on when no url is set. */
    @WithDefault("127.0.0.1")
    String embeddedHost();

    /** The embedded broker's port when no url is set (0: any free port). */
    @WithDefault("1883")
    int embeddedPort();

    /** The MQTT keep-alive. */
    @WithDefault("30s")
    Duration keepAlive();

    /** The first reconnect delay; it doubles up to reconnect-max. */
    @WithDefault("500ms")
    Duration reconnectInitial();

    /** The longest reconnect delay. */
    @WithDefault("10s")
    Duration reconnectMax();

    /** Events kept while the broker is away (the oldest dropped beyond). */
    @WithDefault("10000")
    int offlineEvents();

    /** The CA certificate(s), PEM, that an ssl:// broker's certificate must chain to. */
    Optional<String> caFile();

    /** 5 (MQTT 5, the window is the receive maximum) or 3 (MQTT 3.1.1); docs/runtime.md. */
    @WithDefault("5")
    int version();

    /** The broker's window for unacknowledged QoS 1 messages (MQTT 5 Receive Maximum). */
    @WithDefault("65534")
    int receiveMaximum();
  }

  /** What the gateway takes from MQTT. */
  interface Ingest {
    /** Larger payloads are rejected (oversize). */
    @WithDefault("16384")
    int maxPayloadBytes();

    /** Ingest lag above this is reported to the engine (ingest-lagging). */
    @WithDefault("2s")
    Duration lagThreshold();

    /**
     * A device timestamp further ahead of the gateway's clock than this is rejected
     * (future-timestamp, counted); one older than the point's stale_after enters stale
     * (docs/live.md).
     */
    @WithDefault("1m")
    Duration maxFutureSkew();

    /**
     * MQTT messages held in memory at most (taken, their passes not yet durable): at this many the
     * gateway stops reading from the broker until half are acknowledged (docs/runtime.md,
     * "Overload"). Unset: an eighth of the heap at about 1 KB a message, 500 to 65534 (6,000 with
     * the edge JVM's 48 MB).
     */
    Optional<Long> maxHeld();
  }

  /** The engine's flap limits (docs/engine.md); the defaults are EngineLimits.DEFAULT. */
  interface Limits {
    /** Evaluations of one rule within evaluation-window beyond which it is suspended. */
    @WithDefault("600")
    int evaluationsPerRule();

    /** The window evaluations-per-rule counts over. */
    @WithDefault("10s")
    Duration evaluationWindow();

    /** Claim changes on one point within claim-window beyond which it is flapping. */
    @WithDefault("30")
    int claimChangesPerPoint();

    /** The window claim-changes-per-point counts over. */
    @WithDefault("1m")
    Duration claimWindow();
  }

  /** The command plane's bounds (docs/engine.md); the defaults are CommandSettings.DEFAULT. */
  interface Command {
    /** An undelivered interlock command is escalated after this. */
    @WithDefault("5s")
    Duration interlockBound();

    /** Feedback of an inout point must reach the command within this. */
    @WithDefault("30s")
    Duration convergenceBound();
  }

  /** The retained state topics sentinel/SITE/state/POINT (docs/devices.md). */
  interface State {
    /** Which points publish their state: own (GPIO inputs, derived points), all, or none. */
    @WithDefault("own")
    String points();

    /** The shortest time between two state messages of a point; the latest goes at its end. */
    @WithDefault("1s")
    Duration minInterval();
  }

  /** Home Assistant MQTT discovery and commands (docs/devices.md). */
  interface HomeAssistant {
    /** Whether points, outputs and self points are announced to Home Assistant (discovery). */
    @WithDefault("false")
    boolean discovery();

    /** Home Assistant's discovery prefix. */
    @WithDefault("homeassistant")
    String prefix();

    /** How long a command from Home Assistant overrides an output (operator band). */
    @WithDefault("1h")
    Duration overrideFor();
  }

  /** Raspberry Pi GPIO (docs/gpio.md). */
  interface Gpio {
    /** What drives the pins: auto, gpiod (libgpiod), mock or off (docs/gpio.md). */
    @WithDefault("auto")
    String platform();

    /** A platform that does not open (no permission, a chip busy) is tried again this often. */
    @WithDefault("5s")
    Duration retry();

    /** The engine not answering the adapter's ping this long: outputs go to their safe state. */
    @WithDefault("5s")
    Duration engineTimeout();
  }

  /** Rule-set revisions pushed over MQTT (docs/revisions.md). */
  interface Ruleset {
    /** Ed25519 keys a pushed revision must be signed by; unset: keys.yaml in the site, if there. */
    Optional<Path> keysFile();
  }

  /** The HTTP API (docs/api.md). */
  interface Api {
    /** The bearer token of the API's mutating endpoints; unset: the API is read-only. */
    Optional<String> token();

    /** The longest expires_in an operator override may have. */
    @WithDefault("24h")
    Duration overrideMax();
  }

  /** The store: PostgreSQL behind the local journal (docs/persistence.md). */
  interface Db {
    /** postgresql://user:password@host:5432/database; unset: an embedded PostgreSQL. */
    Optional<String> url();

    /** Passes waiting for the journal's writer. */
    @WithDefault("20000")
    int queueCapacity();

    /** Rows per transaction at most. */
    @WithDefault("5000")
    int batchRows();

    /** A PostgreSQL batch not committed within this is retried. */
    @WithDefault("5s")
    Duration writeTimeout();

    /** The first wait before PostgreSQL is tried again; doubled up to retry-max. */
    @WithDefault("500ms")
    Duration retryEvery();

    /** The longest wait between tries of PostgreSQL. */
    @WithDefault("10s")
    Duration retryMax();

    /** Observation partitions older than this are dropped. */
    @WithDefault("30d")
    Duration retention();

    Embedded embedded();

    /** The embedded PostgreSQL, used when no url is set. */
    interface Embedded {
      /** The embedded server's data folder (kept between runs); unset: HOME/pgdata. */
      Optional<Path> dataDir();
    }
  }

  /** The local write-ahead journal, the durable point (docs/persistence.md). */
  interface Journal {
    /** The journal's folder, never inside a site folder; unset: HOME/journal. */
    Optional<Path> dir();

    /** The journal's bound on disk, in MiB. */
    @WithDefault("1024")
    long maxMb();

    /** One segment file's size, in MiB. */
    @WithDefault("64")
    long segmentMb();

    /**
     * The journal unable to move this long (its disk failing, at its bound, or PostgreSQL answering
     * and taking nothing) takes liveness down.
     */
    @WithDefault("60s")
    Duration stuckAfter();

    /**
     * At most one sync of the journal this often, when the broker's window is large (MQTT 5 with a
     * Receive Maximum of at least 1,000); otherwise each pass syncs at once. A PUBACK waits up to
     * this long, and a power cut loses at most this long of the log's last passes, whose messages
     * the broker delivers again; a command and its pass are written out at once, so a crash of the
     * process alone does not lose them (docs/persistence.md).
     */
    @WithDefault("20ms")
    Duration syncEvery();
  }

  /** Audit anchors (docs/persistence.md, "Audit anchors"). */
  interface Audit {
    /** An audit anchor after this many records. */
    @WithDefault("1000")
    long anchorRecords();

    /** An audit anchor at least this often. */
    @WithDefault("60s")
    Duration anchorInterval();

    /** The gateway's anchor key; unset: audit-anchor.key in the data folder. */
    Optional<String> anchorKey();
  }

  /** A standby gateway (docs/standby.md). */
  interface Standby {
    /** A second gateway of the site may take over: the core lock decides which runs. */
    @WithDefault("false")
    boolean enabled();

    /** How often a standby tries for the core lock. */
    @WithDefault("250ms")
    Duration pollEvery();

    /**
     * How often the running core checks it still holds the lock; its fence closes by itself when no
     * check confirmed it for three times this, which must be shorter than the takeover grace.
     */
    @WithDefault("200ms")
    Duration checkEvery();

    /**
     * How long a standby waits after taking the lock before it drives outputs (not at all when the
     * previous holder released it after a clean stop).
     */
    @WithDefault("1500ms")
    Duration takeoverGrace();

    /** The longest a lock query may take. */
    @WithDefault("1s")
    Duration lockTimeout();
  }

  /** The heartbeat output (docs/standby.md). */
  interface Heartbeat {
    /** A pin toggled while the engine turns over, for a charge-pump or watchdog relay. */
    Optional<Integer> pin();

    /** How often the heartbeat pin toggles. */
    @WithDefault("50ms")
    Duration every();
  }
}
