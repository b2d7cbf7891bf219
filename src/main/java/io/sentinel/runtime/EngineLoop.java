package io.sentinel.runtime;

import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Sample;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jboss.logging.Logger;

/**
 * Runs the engine on one Vert.x context: samples are queued from any thread and handed over in a
 * pass; a timer wakes the engine when it next has something due. Nothing here decides anything.
 */
public final class EngineLoop {
  private static final Logger LOG = Logger.getLogger(EngineLoop.class);

  private final Vertx vertx;
  private final Context context;
  private final Engine engine;
  private final InstantSource clock;
  private final ConcurrentLinkedQueue<Sample> inbox = new ConcurrentLinkedQueue<>();
  private long timer = -1;
  private boolean passScheduled;

  public EngineLoop(Vertx vertx, Engine engine, InstantSource clock) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.engine = engine;
    this.clock = clock;
  }

  public void start() {
    context.runOnContext(v -> pass());
  }

  public void stop() {
    context.runOnContext(v -> vertx.cancelTimer(timer));
  }

  /** Queues a sample (stamped by the caller at receipt) for the next pass. */
  public void offer(Sample sample) {
    inbox.add(sample);
    context.runOnContext(
        v -> {
          if (!passScheduled) {
            passScheduled = true;
            // One pass per event-loop turn collects everything that arrived meanwhile.
            context.runOnContext(w -> pass());
          }
        });
  }

  private void pass() {
    passScheduled = false;
    List<Sample> batch = new ArrayList<>();
    Instant now = clock.instant();
    for (Sample s; (s = inbox.poll()) != null; ) {
      // A sample stamped just before the previous pass ran is taken at that pass's instant: time
      // only runs forward for the engine.
      Instant at =
          s.at().isBefore(engine.clock()) ? engine.clock() : s.at().isAfter(now) ? now : s.at();
      batch.add(new Sample(s.pointId(), s.value(), s.quality(), at));
    }
    PassResult result = engine.pass(now, batch, false);
    log(result);
    engine
        .nextDue()
        .ifPresent(
            due -> {
              vertx.cancelTimer(timer);
              long delay = Math.max(1, Duration.between(clock.instant(), due).toMillis());
              timer = vertx.setTimer(delay, id -> pass());
            });
  }

  private static void log(PassResult r) {
    r.events().forEach(e -> LOG.infof("event %s %s: %s", e.kind(), e.subject(), e.message()));
    r.decisions()
        .forEach(
            d ->
                LOG.infof(
                    "point %s -> %s (%s)",
                    d.pointId(),
                    d.value().map(Object::toString).orElse("released"),
                    d.winner().map(w -> w.ruleId() + ", " + d.decidingKey()).orElse("no claim")));
    r.actions().forEach(a -> LOG.infof("action %s %s %s", a.kind(), a.ruleId(), a.fields()));
  }
}
