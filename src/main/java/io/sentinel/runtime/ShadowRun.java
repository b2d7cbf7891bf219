package io.sentinel.runtime;

import io.sentinel.command.CommandSettings;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.Engine;
import io.sentinel.engine.EngineLimits;
import io.sentinel.engine.PassResult;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.pass.ShadowPass;
import io.sentinel.point.Sample;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.revision.ShadowGate;
import io.sentinel.site.yaml.Problem;
import io.sentinel.store.ShadowRevisions;
import io.sentinel.wire.Payloads;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The shadow revision of a running gateway (docs/shadow.md): accepted by {@link RulesetTopic}
 * through {@link ShadowGate}, recorded in {@code ruleset_shadow}, run after every active pass on
 * the engine's context ({@link Follower}) as a {@link ShadowPass}, and reported as it differs:
 * {@code events/shadow-diff}, the retained {@code ruleset/shadow} summary and {@code GET
 * /api/v1/shadow}. It ends when promoted, superseded by an active revision at or above its number,
 * or replaced by a newer shadow. A defect in it stops the shadow, never the active pass.
 */
final class ShadowRun implements Follower, AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** What the worker thread knows of the shadow running (the engine's context holds the rest). */
  record Current(ShadowReport.About about, RuleSet ruleSet) {}

  private final Site.Basis basis;
  private final Topics topics;
  private final RevisionGate.Trust trust;
  private final Supplier<EngineLoop> loop;
  private final MqttConnection mqtt;
  private final Supplier<Optional<ShadowRevisions>> store;
  private final InstantSource clock;
  private final EngineLimits limits;
  private final CommandSettings settings;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sentinel-shadow");
            t.setDaemon(true);
            return t;
          });

  private volatile Current current;
  private volatile long activeRevision;
  private volatile JsonObject summary;

  /** The engine's context only. */
  private ShadowPass pass;

  private ShadowReport report;

  ShadowRun(
      Site.Basis basis,
      Topics topics,
      RevisionGate.Trust trust,
      Supplier<EngineLoop> loop,
      MqttConnection mqtt,
      Supplier<Optional<ShadowRevisions>> store,
      InstantSource clock,
      EngineLimits limits,
      CommandSettings settings) {
    this.basis = basis;
    this.topics = topics;
    this.trust = trust;
    this.loop = loop;
    this.mqtt = mqtt;
    this.store = store;
    this.clock = clock;
    this.limits = limits;
    this.settings = settings;
  }

  Optional<ShadowGate.Running> running() {
    Current c = current;
    return c == null
        ? Optional.empty()
        : Optional.of(new ShadowGate.Running(c.about().revision(), c.about().contentHash()));
  }

  /** The summary as {@code GET /api/v1/shadow} gives it. */
  JsonObject summary() {
    JsonObject s = summary;
    return s != null ? s : ShadowReport.none(activeRevision, clock.instant());
  }

  /** The ruleset topic's worker: whether a {@code mode: shadow} document may run in shadow. */
  RevisionGate.Verdict decide(RevisionDocument.Checked checked, RevisionGate.Active active) {
    return ShadowGate.decide(checked, active, running(), trust, topics.ruleset());
  }

  /**
   * The ruleset topic's worker: an accepted shadow revision is recorded, then replaces the one
   * running (if any) on the engine's context, between two passes, starting warm.
   */
  void run(RevisionGate.Accept a, String document, long active) throws Exception {
    ShadowReport.About about =
        new ShadowReport.About(
            a.revision(),
            a.contentHash(),
            ShadowGate.promotedBody(document)
                .map(io.sentinel.site.revision.CanonicalBody::sha256)
                .orElseThrow(),
            a.signer(),
            a.reviewer(),
            // as the database keeps it, so that a restart reports the same instant
            clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    Optional<ShadowRevisions> db = store.get();
    try {
      if (db.isEmpty()) {
        throw new IllegalStateException("the database is not reached");
      }
      db.get()
          .recordRunning(
              topics.site(),
              new ShadowRevisions.Stored(
                  about.revision(),
                  about.contentHash(),
                  about.promotedHash(),
                  document,
                  about.signer(),
                  about.reviewer(),
                  about.since()),
              active);
    } catch (Exception e) {
      LOG.warnf(
          "SEN-165 shadow revision %d runs but is not recorded (%s): after a restart it runs"
              + " again only while the ruleset topic retains it",
          about.revision(), e.getMessage());
    }
    activeRevision = active;
    Current before = current;
    current = new Current(about, a.ruleSet());
    try {
      loop.get()
          .inspectEngine(
              engine -> {
                begin(engine, a.ruleSet(), about, false);
                return null;
              })
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      current = before;
      endRecorded(about.revision(), "dropped", 0);
      throw e;
    }
    loop.get().onContext(() -> PlaneOutput.NONE); // rearms the loop for the shadow's timers
  }

  /**
   * At a start, before the first pass: the shadow revision recorded as running, checked again like
   * the active one (against the site's files and trusted keys, above the active revision). It
   * starts cold beside the cold active engine; one that no longer passes is dropped, said.
   */
  void restore(RevisionGate.Active active) {
    activeRevision = active.revision();
    Optional<ShadowRevisions.Stored> stored;
    try {
      Optional<ShadowRevisions> db = store.get();
      stored = db.isEmpty() ? Optional.empty() : db.get().running(topics.site());
    } catch (Exception e) {
      LOG.warnf("SEN-168 the shadow revision recorded cannot be read (%s)", e.getMessage());
      return;
    }
    if (stored.isEmpty()) {
      return;
    }
    ShadowRevisions.Stored s = stored.get();
    RevisionDocument.Checked checked =
        RevisionDocument.check(topics.ruleset(), s.document(), basis, topics.site());
    RevisionGate.Verdict v =
        checked.shadow()
            ? ShadowGate.decide(checked, active, Optional.empty(), trust, topics.ruleset())
            : new RevisionGate.Reject(checked.revision(), "invalid", List.of());
    if (!(v instanceof RevisionGate.Accept a)) {
      List<String> why =
          v instanceof RevisionGate.Reject r
              ? r.problems().stream().filter(Problem::isError).map(Problem::format).toList()
              : List.of();
      LOG.warnf(
          "SEN-163 shadow revision %d is not run again: it no longer passes beside revision %d %s",
          s.revision(), active.revision(), why);
      endRecorded(s.revision(), "dropped", 0);
      return;
    }
    ShadowReport.About about =
        new ShadowReport.About(
            s.revision(),
            s.contentHash(),
            s.promotedHash(),
            a.signer(),
            a.reviewer(),
            s.receivedAt());
    current = new Current(about, a.ruleSet());
    LOG.infof(
        "SEN-162 shadow revision %d runs again beside revision %d (recorded %s)",
        s.revision(), active.revision(), s.receivedAt());
    loop.get()
        .inspectEngine(
            engine -> {
              begin(engine, a.ruleSet(), about, true);
              return null;
            });
  }

  /**
   * The ruleset topic's worker, after an active revision took over: the one that carries the
   * shadow's body promotes it; one at or above its number supersedes it (it could no longer be
   * promoted); a lower one leaves it running, compared with the new active set from here.
   */
  void activeChanged(long revision, String contentHash) {
    activeRevision = revision;
    Current c = current;
    if (c == null) {
      return;
    }
    String state;
    if (contentHash.equals(c.about().promotedHash())) {
      state = "promoted";
    } else if (revision >= c.about().revision()) {
      state = "superseded";
    } else {
      loop.get().onContext(() -> publishOnContext("running"));
      return;
    }
    current = null;
    endRecorded(c.about().revision(), state, revision);
    LOG.infof(
        "SEN-161 shadow revision %d %s by revision %d", c.about().revision(), state, revision);
    loop.get()
        .onContext(
            () -> {
              if (report != null && report.about() == c.about()) {
                PlaneOutput out = ended(state, revision);
                pass = null;
                report = null;
                return out;
              }
              return PlaneOutput.NONE;
            });
  }

  @Override
  public void close() {
    writer.shutdown();
  }

  // ---- the engine's context -------------------------------------------------------------------

  private void begin(Engine active, RuleSet ruleSet, ShadowReport.About about, boolean cold) {
    ShadowReport r = new ShadowReport(about);
    ShadowPass next =
        ShadowPass.start(active, ruleSet, cold, limits, settings, c -> r.commandRecorded());
    if (report != null) {
      ended("replaced", about.revision()); // only once the new one stands
    }
    report = r;
    pass = next;
    LOG.infof(
        "SEN-160 shadow revision %d runs beside revision %d (%s): commands recorded, none sent",
        about.revision(), activeRevision, cold ? "cold, from the start" : "warm, from now");
    report(pass.compareAll(active, active.clock()), active.clock());
  }

  @Override
  public void passed(
      Instant now, List<Sample> samples, boolean lagging, Engine active, PassResult result) {
    if (pass == null) {
      return;
    }
    try {
      report.passed();
      report(pass.follow(now, samples, lagging, active, result), now);
    } catch (RuntimeException e) {
      fail(e, now);
    }
  }

  @Override
  public void activated(Instant now, Engine active) {
    if (pass == null) {
      return;
    }
    try {
      report(pass.compareAll(active, now), now);
    } catch (RuntimeException e) {
      fail(e, now);
    }
  }

  @Override
  public void operated(BiFunction<Engine, Instant, ?> request, Instant now) {
    if (pass == null) {
      return;
    }
    try {
      request.apply(pass.engine(), now); // an override or a resume: the shadow takes it too
    } catch (RuntimeException e) {
      LOG.debugf("the shadow revision does not take the operator's request: %s", e.getMessage());
    }
  }

  @Override
  public Optional<Instant> nextDue() {
    return pass == null ? Optional.empty() : pass.nextDue();
  }

  private void report(List<ShadowPass.Difference> changed, Instant now) {
    for (ShadowPass.Difference d : changed) {
      JsonObject o = report.reported(d);
      LOG.infof(
          "SEN-166 shadow revision %d %s %s",
          report.about().revision(), d.differs() ? "differs:" : "agrees:", ShadowReport.line(d));
      mqtt.publishEvent(
          topics.events("shadow-diff"), Payloads.bytes(report.event(d, o, activeRevision)));
    }
    if (!changed.isEmpty() || summary == null || !"running".equals(summary.getString("state"))) {
      publishOnContext("running");
    }
  }

  private PlaneOutput publishOnContext(String state) {
    if (report == null) {
      return PlaneOutput.NONE;
    }
    JsonObject s = report.summary(state, activeRevision, pass.open(), clock.instant());
    summary = s;
    mqtt.publishRetained(shadowTopic(), Payloads.bytes(s));
    return PlaneOutput.NONE;
  }

  private PlaneOutput ended(String state, long by) {
    JsonObject s =
        report.summary(state, activeRevision, pass.open(), clock.instant()).put("ended_by", by);
    summary = state.equals("replaced") ? null : s;
    if (!state.equals("replaced")) {
      mqtt.publishRetained(shadowTopic(), Payloads.bytes(s));
    }
    mqtt.publishEvent(
        topics.events("shadow-ended"),
        Payloads.event(
            new io.sentinel.engine.ControlEvent(
                "shadow-ended",
                "revision " + report.about().revision(),
                "shadow revision " + report.about().revision() + " " + state + " by revision " + by,
                clock.instant())));
    return PlaneOutput.NONE;
  }

  private void fail(RuntimeException e, Instant now) {
    LOG.errorf(
        e, "SEN-164 shadow revision %d failed at %s: it stops", report.about().revision(), now);
    long revision = report.about().revision();
    ended("dropped", 0);
    pass = null;
    report = null;
    current = null;
    endRecorded(revision, "dropped", 0);
  }

  private void endRecorded(long revision, String state, long by) {
    Instant at = clock.instant();
    writer.execute(
        () -> {
          try {
            Optional<ShadowRevisions> db = store.get();
            if (db.isPresent()) {
              db.get().end(topics.site(), revision, state, by, at);
            }
          } catch (Exception e) {
            LOG.warnf(
                "SEN-167 shadow revision %d %s, not recorded (%s)",
                revision, state, e.getMessage());
          }
        });
  }

  String shadowTopic() {
    return topics.rulesetShadow();
  }
}
