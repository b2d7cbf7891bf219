package io.sentinel.runtime;

import io.sentinel.audit.AnchorCadence;
import io.sentinel.audit.AuditAnchor;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.store.Anchors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Anchors the audit chain (docs/persistence.md, "Audit anchors"): the head of the durable chain
 * (seq, hash), signed with the gateway's own Ed25519 key, published retained on {@code
 * sentinel/<site>/audit/anchor} and kept in {@code audit_anchors} when its {@link AnchorCadence}
 * says so: every N records and at least every interval. The key is made on the first start in the
 * data folder and kept; its public half is logged at every start.
 */
final class AuditAnchoring implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** How often the chain's head is looked at. */
  private static final Duration TICK = Duration.ofSeconds(1);

  private final String site;
  private final String topic;
  private final Anchors anchors;
  private final MqttConnection mqtt;
  private final InstantSource clock;
  private final AnchorCadence cadence;
  private final PrivateKey key;
  private final PublicKey publicKey;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sentinel-audit-anchor");
            t.setDaemon(true);
            return t;
          });
  private AuditAnchor last;
  private volatile boolean failing;

  AuditAnchoring(
      String site,
      String topic,
      Anchors anchors,
      MqttConnection mqtt,
      InstantSource clock,
      long every,
      Duration interval,
      KeyPair key) {
    this.site = site;
    this.topic = topic;
    this.anchors = anchors;
    this.mqtt = mqtt;
    this.clock = clock;
    this.cadence = new AnchorCadence(Math.max(1, every), interval);
    this.key = key.getPrivate();
    this.publicKey = key.getPublic();
  }

  /** The gateway's anchoring as {@code sentinel.audit.*} configures it (docs/persistence.md). */
  static AuditAnchoring of(
      io.sentinel.config.SentinelConfig config,
      io.sentinel.mqtt.Topics topics,
      Anchors anchors,
      MqttConnection mqtt,
      InstantSource clock) {
    return new AuditAnchoring(
        topics.site(),
        topics.auditAnchor(),
        anchors,
        mqtt,
        clock,
        config.audit().anchorRecords(),
        config.audit().anchorInterval(),
        key(
            config
                .audit()
                .anchorKey()
                .filter(k -> !k.isBlank())
                .map(Path::of)
                .orElseGet(() -> config.home().resolve("audit-anchor.key"))));
  }

  /**
   * The gateway's anchor key, {@code file} (PKCS#8 PEM) and {@code file}.pub: made on first use,
   * the private file readable by its owner only.
   */
  static KeyPair key(Path file) {
    try {
      Path pub = file.resolveSibling(file.getFileName() + ".pub");
      if (Files.exists(file)) {
        PrivateKey priv = RevisionKeys.privateKey(Files.readString(file));
        return new KeyPair(RevisionKeys.publicKey(Files.readString(pub)), priv);
      }
      KeyPair pair = RevisionKeys.generate();
      Files.createDirectories(file.toAbsolutePath().getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, RevisionKeys.privatePem(pair.getPrivate()), StandardCharsets.UTF_8);
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: the file keeps its default permissions
      }
      Files.writeString(pub, RevisionKeys.publicPem(pair.getPublic()), StandardCharsets.UTF_8);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      LOG.infof("SEN-041 made the gateway's audit anchor key %s (public: %s)", file, pub);
      return pair;
    } catch (IOException e) {
      throw new UncheckedIOException("SEN-042 the audit anchor key " + file + ": " + e, e);
    }
  }

  void start() {
    String pub = RevisionKeys.publicBase64(publicKey);
    LOG.infof(
        "SEN-040 audit anchors on %s every %d records and at least every %s, signed by key %s"
            + " (public key %s)",
        topic, cadence.everyRecords(), cadence.atLeastEvery(), AuditAnchor.fingerprint(pub), pub);
    timer.scheduleWithFixedDelay(
        this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One last anchor of what is durable now (at a clean stop, after the journal's last flush). */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    anchorIfNeeded(true);
  }

  private void tick() {
    anchorIfNeeded(false);
  }

  private synchronized void anchorIfNeeded(boolean closing) {
    try {
      Optional<Anchors.Head> head = anchors.head();
      if (head.isEmpty()) {
        return;
      }
      Instant now = clock.instant();
      if (!cadence.due(Optional.ofNullable(last), head.get().seq(), now, closing)) {
        return;
      }
      AuditAnchor a =
          AuditAnchor.sign(site, head.get().seq(), head.get().hash(), now, key, publicKey);
      anchors.record(a);
      mqtt.publishRetained(topic, a.json().getBytes(StandardCharsets.UTF_8));
      last = a;
      if (failing) {
        LOG.infof("SEN-044 audit anchors recorded again (seq %d)", a.seq());
      }
      failing = false;
    } catch (Exception e) {
      if (!failing) {
        LOG.warnf(
            "SEN-043 the audit chain's head could not be anchored (%s): retried every second",
            e.getMessage());
      }
      failing = true;
    }
  }
}
