package io.sentinel.runtime;

import io.sentinel.door.Door;
import io.sentinel.door.Refusal;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionCodes;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.yaml.Problems;
import io.sentinel.store.PassRecorder;
import io.sentinel.store.Revisions;
import io.sentinel.wire.Payloads;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The {@code ruleset} topic (docs/revisions.md): each revision document, one at a time and in
 * arrival order on a thread of its own, is checked against the running site's basis, passed through
 * {@link RevisionGate}, and either activated between two engine passes or rejected; the retained
 * {@code ruleset/status} says which, with every problem. The decisions are the core's; this class
 * only moves bytes, threads and outcomes.
 */
final class RulesetTopic implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final Site.Basis basis;
  private final Topics topics;
  private final RevisionGate.Trust trust;
  private final EngineLoop loop;
  private final MqttConnection mqtt;
  private final PassRecorder recorder;
  private final Revisions revisions;
  private final InstantSource clock;
  private final Instant started;
  private final GatewayMetrics metrics;
  private final ShadowRun shadow;
  private final RulesetOutcomes outcomes;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sentinel-ruleset");
            t.setDaemon(true);
            return t;
          });
  private volatile RevisionGate.Active active;

  /** The last document refused, byte for byte, with its refusal. */
  private Refused lastRefused;

  private record Refused(byte[] payload, RevisionGate.Reject reject, String hash) {}

  RulesetTopic(
      Site.Basis basis,
      Topics topics,
      RevisionGate.Trust trust,
      RevisionGate.Active active,
      EngineLoop loop,
      MqttConnection mqtt,
      PassRecorder recorder,
      Revisions revisions,
      InstantSource clock,
      Instant started,
      GatewayMetrics metrics,
      ShadowRun shadow) {
    this.basis = basis;
    this.topics = topics;
    this.trust = trust;
    this.active = active;
    this.loop = loop;
    this.mqtt = mqtt;
    this.recorder = recorder;
    this.revisions = revisions;
    this.clock = clock;
    this.started = started;
    this.metrics = metrics;
    this.shadow = shadow;
    this.outcomes =
        new RulesetOutcomes(
            topics, loop, mqtt, revisions, clock, metrics, () -> this.active.revision());
  }

  RevisionGate.Active active() {
    return active;
  }

  /** Any thread (the MQTT client's): queues a document for its turn. */
  void offer(byte[] payload) {
    try {
      worker.execute(() -> handle(payload));
    } catch (RejectedExecutionException e) {
      LOG.debugf("revision arrived while the gateway stops: left for the next start");
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }

  private void handle(byte[] payload) {
    outcomes.answering(payload);
    try {
      decide(payload);
    } catch (RuntimeException e) {
      // A defect must not take the topic down: the document is refused and said so.
      LOG.errorf(e, "SEN-035 a revision document could not be handled");
      Problems p = new Problems();
      p.error(RevisionCodes.REV_099, topics.ruleset(), 0, "", "internal error: " + e);
      outcomes.reject(
          new RevisionGate.Reject(OptionalLong.empty(), "invalid", p.sorted()), "", text(payload));
    } catch (StackOverflowError | OutOfMemoryError e) {
      // Never a silent death of this thread: the document is rejected with a status and a record.
      // The door bounds depth and size first (docs/hostile-input.md); this is the backstop.
      LOG.errorf("SEN-100 a revision document exhausted the revision thread (%s): rejected", e);
      Problems p = new Problems();
      p.error(
          RevisionCodes.REV_100,
          topics.ruleset(),
          0,
          "",
          "the document could not be checked within the revision thread's "
              + (e instanceof StackOverflowError ? "stack" : "memory")
              + ": rejected unread");
      outcomes.reject(
          new RevisionGate.Reject(OptionalLong.empty(), "invalid", p.sorted()),
          "",
          Optional.empty());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void decide(byte[] payload) throws InterruptedException {
    String file = topics.ruleset();
    if (payload.length == 0) {
      // Clearing the retained document is housekeeping, not a revision.
      LOG.infof("SEN-036 %s cleared: revision %d stays active", file, active.revision());
      return;
    }
    Refused before = lastRefused;
    if (before != null && java.util.Arrays.equals(payload, before.payload())) {
      // The same refused bytes again (the retained copy after a reconnect, or a push repeated):
      // the refusal is said again for whoever waits on it, but recorded and counted once.
      LOG.debugf("a revision document refused before was delivered again: refused again");
      metrics.revision("repeated", "");
      outcomes.status(
          before.reject().revision(),
          "rejected",
          before.hash(),
          before.reject().problems(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty());
      return;
    }
    Optional<String> text = text(payload);
    RevisionGate.Verdict verdict;
    String hash = "";
    boolean inShadow = false;
    if (payload.length > RevisionDocument.MAX_BYTES || text.isEmpty()) {
      Problems p = new Problems();
      p.error(
          payload.length > RevisionDocument.MAX_BYTES
              ? RevisionCodes.REV_008
              : RevisionCodes.REV_009,
          file,
          0,
          "",
          payload.length > RevisionDocument.MAX_BYTES
              ? "a revision document is at most "
                  + RevisionDocument.MAX_BYTES
                  + " bytes; this one has "
                  + payload.length
              : "a revision document is UTF-8 text (YAML or JSON)");
      verdict = new RevisionGate.Reject(OptionalLong.empty(), "invalid", p.sorted());
    } else {
      RevisionDocument.Checked checked =
          RevisionDocument.check(file, text.get(), basis, topics.site());
      inShadow = checked.shadow();
      verdict =
          inShadow
              ? shadow.decide(checked, active)
              : RevisionGate.decide(checked, active, trust, file);
      hash = checked.canonicalBody().isEmpty() ? "" : checked.contentHash();
      if (verdict instanceof RevisionGate.Accept a) {
        if (inShadow) {
          runInShadow(a, text.get());
        } else {
          activate(a, text.get());
        }
        return;
      }
    }
    if (verdict instanceof RevisionGate.Unchanged u) {
      LOG.debugf("revision %d delivered again: already active", u.revision());
      metrics.revision("unchanged", "");
      // Said once: after a start, or after a rejected document took the status.
      if (!hash.equals(outcomes.lastStatusHash())) {
        outcomes.status(
            OptionalLong.of(u.revision()),
            inShadow ? "shadow" : "active",
            hash,
            List.of(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
      }
    } else {
      outcomes.reject((RevisionGate.Reject) verdict, hash, text);
      lastRefused = new Refused(payload, (RevisionGate.Reject) verdict, hash);
    }
  }

  /**
   * Waits for the engine to take a revision, however long: once queued on the engine's context it
   * runs (or fails because the loop stopped), and giving up early would report a revision rejected
   * that the engine then runs. A stop interrupts the wait.
   */
  private static void awaitActivation(CompletableFuture<?> activation, long revision)
      throws InterruptedException, java.util.concurrent.ExecutionException {
    try {
      activation.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warnf("SEN-039 revision %d: the engine has not taken it after 30 s; waiting", revision);
      activation.get();
    }
  }

  private void activate(RevisionGate.Accept a, String document) throws InterruptedException {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("source", "push");
    detail.put("previous_revision", active.revision());
    detail.put("content_hash", a.contentHash());
    detail.put("signer", a.signer().orElse(null));
    detail.put("reviewer", a.reviewer().orElse(null));
    detail.put("kept", a.changes().kept());
    detail.put("toggled", a.changes().toggled());
    detail.put("changed", a.changes().changed());
    detail.put("added", a.changes().added());
    detail.put("removed", a.changes().removed());
    try {
      awaitActivation(
          loop.activate(
              a.ruleSet(),
              (now, activation) -> recorder.activated(now, activation, a.revision(), detail)),
          a.revision());
    } catch (java.util.concurrent.ExecutionException e) {
      outcomes.refusedByEngine(a, document, "the engine did not take the revision: " + e);
      return;
    }
    active = new RevisionGate.Active(a.revision(), a.contentHash(), a.ruleSet());
    metrics.revision("active", "");
    try {
      revisions.recordPushed(
          a.revision(), topics.site(), a.contentHash(), document, a.warnings(), clock.instant());
    } catch (Exception e) {
      LOG.warnf(
          "SEN-DB-057 revision %d is active but not recorded (%s): a restart starts from the"
              + " previous one, then takes this one again from the retained topic",
          a.revision(), e.getMessage());
    }
    a.warnings().forEach(p -> LOG.warn(p.format()));
    String summary = signatures(a) + "; " + a.changes().summary();
    LOG.infof("SEN-038 revision %d active: %s", a.revision(), summary);
    outcomes.status(
        OptionalLong.of(a.revision()),
        "active",
        a.contentHash(),
        a.warnings(),
        a.signer(),
        a.reviewer(),
        Optional.of(a.changes()));
    mqtt.publishRetained(
        topics.status(), Payloads.status("online", Optional.of(a.revision()), started));
    outcomes.event("ruleset-activated", a.revision(), summary);
    shadow.activeChanged(a.revision(), a.contentHash());
  }

  /** Who signed and reviewed a revision, as the log and the events say it. */
  private static String signatures(RevisionGate.Accept a) {
    return a.signer().map(s -> "signed by " + s).orElse("unsigned")
        + a.reviewer().map(r -> ", reviewed by " + r).orElse("");
  }

  /**
   * A {@code mode: shadow} revision accepted (docs/shadow.md): it runs beside the active set, and
   * the status says {@code shadow}; a failure to start it rejects it like a failed activation.
   */
  private void runInShadow(RevisionGate.Accept a, String document) throws InterruptedException {
    try {
      shadow.run(a, document, active.revision());
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      LOG.errorf(e, "SEN-169 shadow revision %d could not be started", a.revision());
      outcomes.refusedByEngine(a, document, "the engine did not take the shadow revision: " + e);
      return;
    }
    metrics.revision("shadow", "");
    a.warnings().forEach(p -> LOG.warn(p.format()));
    String summary =
        signatures(a) + "; beside revision " + active.revision() + ": " + a.changes().summary();
    outcomes.status(
        OptionalLong.of(a.revision()),
        "shadow",
        a.contentHash(),
        a.warnings(),
        a.signer(),
        a.reviewer(),
        Optional.of(a.changes()));
    outcomes.event("ruleset-shadow", a.revision(), summary);
  }

  /** The payload as text, if it is strict UTF-8 (the door's one definition). */
  private static Optional<String> text(byte[] payload) {
    try {
      return Optional.of(Door.utf8(payload, ""));
    } catch (Refusal e) {
      return Optional.empty();
    }
  }
}
