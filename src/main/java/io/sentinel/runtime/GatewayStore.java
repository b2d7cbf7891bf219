package io.sentinel.runtime;

import io.sentinel.config.SentinelConfig;
import io.sentinel.engine.Engine;
import io.sentinel.engine.RestartState;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.yaml.Problem;
import io.sentinel.store.Revisions;
import io.sentinel.store.Store;
import io.sentinel.store.StoreConfig;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The gateway's start-up steps on the store: open it, choose the revision to start from, restore
 * the last state into the cold engine.
 */
final class GatewayStore {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private GatewayStore() {}

  /**
   * {@link #open} on a thread of its own, begun before the site loads: the store needs only the
   * configuration, and its first round trip to PostgreSQL (or the embedded server's start) then
   * overlaps the site's loading and the MQTT client's making instead of following them
   * (docs/deployment.md, "The start, session 10").
   */
  static CompletableFuture<Store> opening(
      SentinelConfig config, Vertx vertx, Supplier<EngineLoop> loop, InstantSource clock) {
    return CompletableFuture.supplyAsync(
        () -> open(config, vertx, loop, clock),
        r -> {
          Thread t = new Thread(r, "sentinel-store-open");
          t.setDaemon(true);
          t.start();
        });
  }

  /** The store {@link #opening} opened, or what {@link #open} threw, as it threw it. */
  static <T> T opened(CompletableFuture<T> opening) {
    try {
      return opening.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * A start that failed before it took the store: waits for the opening and closes what it opened,
   * so that no embedded server outlives the failed start.
   */
  static void abandon(CompletableFuture<? extends AutoCloseable> opening) {
    try {
      opening.join().close();
    } catch (Exception e) {
      LOG.debugf("the store of a start that failed did not open or close cleanly: %s", e);
    }
  }

  /** The database sentinel.db.url names, else the embedded one (docs/persistence.md). */
  static Store open(
      SentinelConfig config, Vertx vertx, Supplier<EngineLoop> loop, InstantSource clock) {
    try {
      if (config.standby().enabled()) {
        // The lock is held: this journal continues the log the other core may have written since.
        StoreConfig sc = StoreConfig.from(config);
        io.sentinel.store.JournalHandover.prepare(
            sc.journal().dir(),
            sc.journal().segmentBytes(),
            io.sentinel.store.DbUrl.parse(sc.url().orElseThrow()),
            clock);
      }
      Store opened =
          Store.open(
              StoreConfig.from(config),
              Optional.of(vertx),
              (event, self) -> {
                EngineLoop l = loop.get();
                if (l != null) {
                  l.alarm(event, self);
                }
              },
              clock);
      LOG.infof("SEN-DB-050 logging to %s", opened.url());
      return opened;
    } catch (IOException | java.sql.SQLException | RuntimeException e) {
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
  static RevisionGate.Active startingRevision(
      Store store, Site site, Topics topics, List<Problem> problems, Instant started) {
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
   * Last values (quality restored), derived state, latches and cooldowns into the cold engine,
   * before its first pass. What no longer fits the site is named and left out.
   */
  static RestartState restore(Store store, Engine engine, long revision) {
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
          revision);
      return kept;
    } catch (Exception e) {
      throw new IllegalStateException(
          "SEN-DB-060 the last state could not be read from the store: " + e.getMessage(), e);
    }
  }
}
