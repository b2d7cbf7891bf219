package io.sentinel.runtime;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.Driver;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.journal.Observation;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Runs the engine and the command plane on one Vert.x context. Samples are queued from any thread
 * and taken in passes: at most one pass per millisecond while samples keep coming, none while idle,
 * and a timer for whatever the engine or the plane has due next. Nothing here decides anything; it
 * only says what time it is and whether ingest lags.
 */
public final class EngineLoop {
  private static final Logger LOG = Logger.getLogger(EngineLoop.class);
  private static final long CYCLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** Where a pass's outputs go (publication, logs, metrics); called on the engine's context. */
  public interface Outputs {
    void passed(Instant now, PassResult result, PlaneOutput plane, int samples);

    void planeReported(PlaneOutput plane);
  }

  /**
   * Where each pass goes to be kept (the store's recorder), called on the engine's context right
   * after the pass, with the observations in the order the engine took them. Must not wait.
   */
  @FunctionalInterface
  public interface PassLog {
    PassLog NONE = (now, observations, result) -> {};

    void record(Instant now, List<Observation> observations, PassResult result);

    /** The command plane's and the runtime's own events (the engine's are in its pass). */
    default void events(List<ControlEvent> events) {}
  }

  private final Vertx vertx;
  private final Context context;

  /** Replaced by an activation, on the engine's context only. */
  private Engine engine;

  private final CommandPlane plane;
  private final InstantSource clock;
  private final Duration lagThreshold;
  private final Outputs outputs;
  private final PassLog passLog;
  private final ConcurrentLinkedQueue<Observation> inbox = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeScheduled = new AtomicBoolean();
  private long timer = -1;
  private Instant timerDue;
  private long lastPassNanos = System.nanoTime() - CYCLE_NANOS;
  private boolean lagging;
  private volatile Duration lastLag = Duration.ZERO;
  private volatile boolean stopped;

  public EngineLoop(
      Vertx vertx,
      Engine engine,
      CommandPlane plane,
      InstantSource clock,
      Duration lagThreshold,
      Outputs outputs,
      PassLog passLog) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.engine = engine;
    this.plane = plane;
    this.clock = clock;
    this.lagThreshold = lagThreshold;
    this.outputs = outputs;
    this.passLog = passLog;
  }

  /** The first pass: the engine's start (fail-safe interlocks) reaches the command plane. */
  public void start() {
    context.runOnContext(v -> pass());
  }

  /**
   * Stops taking passes; {@code last} runs on the engine's context after the last pass (the final
   * snapshot for the store). Completes once it has run.
   */
  public CompletableFuture<Void> stop(Runnable last) {
    stopped = true;
    CompletableFuture<Void> done = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          vertx.cancelTimer(timer);
          try {
            last.run();
            done.complete(null);
          } catch (RuntimeException e) {
            done.completeExceptionally(e);
          }
        });
    return done;
  }

  /**
   * Queues a sample (stamped at receipt by the caller) for the next pass; any thread. {@code
   * source} says where it came from ({@code mqtt:<topic>}, {@code gpio:<pin>}), {@code deviceTime}
   * is the device's own timestamp if it sent one: both only go to the log.
   */
  public void offer(Sample sample, String source, Optional<Instant> deviceTime) {
    inbox.add(
        new Observation(
            sample.pointId(), sample.value(), sample.quality(), source, deviceTime, sample.at()));
    if (wakeScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> soon());
    }
  }

  /** The age of the oldest sample the last pass took. */
  public Duration ingestLag() {
    return lastLag;
  }

  /** Runs {@code work} on the engine's context and hands what the plane reported to the outputs. */
  public void onContext(Supplier<PlaneOutput> work) {
    context.runOnContext(
        v -> {
          if (stopped) {
            return;
          }
          PlaneOutput out = work.get();
          if (!out.isEmpty()) {
            logEvents(out);
            outputs.planeReported(out);
          }
          rearm();
        });
  }

  /**
   * Makes an alarm raised outside the engine visible like the engine's events, on the engine's
   * context (the journal's alarms: it logs them itself, so they are not handed to the pass log).
   */
  public void alarm(ControlEvent event, SelfPoint selfPoint) {
    context.runOnContext(
        v -> {
          if (!stopped) {
            outputs.planeReported(new PlaneOutput(List.of(event), List.of(selfPoint)));
          }
        });
  }

  public void delivered(String commandId) {
    onContext(() -> plane.delivered(now(), commandId));
  }

  public void failed(String commandId) {
    onContext(() -> plane.failed(now(), commandId));
  }

  public void readinessChanged(Driver driver) {
    onContext(() -> plane.readinessChanged(now(), driver));
  }

  /** Reads the command plane's state on its own thread. */
  public <T> CompletableFuture<T> inspect(Function<CommandPlane, T> query) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(v -> result.complete(query.apply(plane)));
    return result;
  }

  /** Reads the engine's state (point values, rule states) on its own thread. */
  public <T> CompletableFuture<T> inspectEngine(Function<Engine, T> query) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(v -> result.complete(query.apply(engine)));
    return result;
  }

  /**
   * Hands the engine over to a new rule set on its own context, between two passes: a pass first
   * brings the engine to now, then the activation's claim changes and decisions go to the log, the
   * command plane and the outputs like a pass's. {@code log} receives the activation before
   * anything else sees it (the recorder's revision entry). Fails when the loop has stopped.
   */
  public CompletableFuture<Engine.Activation> activate(
      io.sentinel.rule.RuleSet next,
      java.util.function.BiConsumer<Instant, Engine.Activation> log) {
    CompletableFuture<Engine.Activation> done = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          if (stopped) {
            done.completeExceptionally(new IllegalStateException("the engine loop has stopped"));
            return;
          }
          try {
            pass();
            Instant now = engine.clock();
            Engine.Activation a = engine.activate(next);
            engine = a.engine();
            plane.rulesChanged(next);
            try {
              log.accept(now, a);
            } catch (RuntimeException e) {
              LOG.errorf(e, "SEN-021 activation at %s not handed to the log", now);
            }
            PlaneOutput applied = plane.apply(now, a.result());
            logEvents(applied);
            outputs.passed(now, a.result(), applied, 0);
            rearm();
            done.complete(a);
          } catch (RuntimeException e) {
            LOG.errorf(e, "SEN-022 activation of a new rule set failed");
            done.completeExceptionally(e);
          }
        });
    return done;
  }

  /** Asks the engine to resume a suspended rule at the next pass. */
  public void resume(String ruleId) {
    context.runOnContext(
        v -> {
          engine.resume(ruleId);
          pass();
        });
  }

  private void soon() {
    long since = System.nanoTime() - lastPassNanos;
    if (since >= CYCLE_NANOS) {
      pass();
    } else {
      vertx.setTimer(1, id -> pass());
    }
  }

  /** Time only runs forward for the engine, even if the wall clock steps back. */
  private Instant now() {
    Instant now = clock.instant();
    return now.isBefore(engine.clock()) ? engine.clock() : now;
  }

  private void pass() {
    if (stopped) {
      return;
    }
    wakeScheduled.set(false);
    lastPassNanos = System.nanoTime();
    Instant now = now();
    List<Sample> batch = new ArrayList<>();
    List<Observation> observations = new ArrayList<>();
    Instant oldest = null;
    for (Observation o; (o = inbox.poll()) != null; ) {
      Instant received = o.receivedAt();
      if (oldest == null || received.isBefore(oldest)) {
        oldest = received;
      }
      // A sample stamped before the previous pass ran is taken at that pass's instant; the log
      // keeps the instant the engine took it at, which is what a replay feeds it by.
      Instant at =
          received.isBefore(engine.clock())
              ? engine.clock()
              : received.isAfter(now) ? now : received;
      Observation taken =
          at.equals(received)
              ? o
              : new Observation(
                  o.pointId(), o.value(), o.quality(), o.source(), o.observedAt(), at);
      observations.add(taken);
      batch.add(taken.toSample());
    }
    Duration lag = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
    lastLag = lag;
    boolean lagNow = lag.compareTo(lagThreshold) > 0;
    try {
      PassResult result = engine.pass(now, batch, lagNow);
      log(now, observations, result);
      PlaneOutput applied = plane.apply(now, result);
      PlaneOutput ticked = plane.tick(now);
      PlaneOutput planeOut = merge(applied, ticked, lagChange(lagNow, lag, now));
      logEvents(planeOut);
      outputs.passed(now, result, planeOut, batch.size());
    } catch (RuntimeException e) {
      // A defect must not stop the gateway: the pass is lost and said so, the next one runs.
      LOG.errorf(e, "SEN-020 engine pass at %s failed with %d samples", now, batch.size());
    }
    rearm();
  }

  /** The log must not cost a pass its commands: a failure to hand it over is said, not thrown. */
  private void log(Instant now, List<Observation> observations, PassResult result) {
    try {
      passLog.record(now, observations, result);
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-021 pass at %s not handed to the log", now);
    }
  }

  private void logEvents(PlaneOutput out) {
    if (out.events().isEmpty()) {
      return;
    }
    try {
      passLog.events(out.events());
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-021 %d events not handed to the log", out.events().size());
    }
  }

  private PlaneOutput lagChange(boolean lagNow, Duration lag, Instant now) {
    if (lagNow == lagging) {
      return PlaneOutput.NONE;
    }
    lagging = lagNow;
    return new PlaneOutput(
        List.of(
            new ControlEvent(
                lagNow ? "ingest-lagging" : "ingest-caught-up",
                "ingest",
                lagNow
                    ? "oldest waiting sample is "
                        + lag.toMillis()
                        + " ms old (threshold "
                        + lagThreshold.toMillis()
                        + " ms): warmup deadlines and staleness pause"
                    : "ingest lag back under " + lagThreshold.toMillis() + " ms",
                now)),
        List.of(new SelfPoint("ingest.lagging", Value.of(lagNow), now)));
  }

  private void rearm() {
    Optional<Instant> next = earliest(engine.nextDue(), plane.nextDue());
    if (next.isEmpty() || next.get().equals(timerDue)) {
      return;
    }
    vertx.cancelTimer(timer);
    timerDue = next.get();
    long nanos = Duration.between(clock.instant(), timerDue).toNanos();
    long delay = Math.max(1, (nanos + 999_999) / 1_000_000);
    timer =
        vertx.setTimer(
            delay,
            id -> {
              timerDue = null;
              pass();
            });
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return Optional.of(a.get().isBefore(b.get()) ? a.get() : b.get());
  }

  private static PlaneOutput merge(PlaneOutput... outs) {
    List<ControlEvent> events = new ArrayList<>();
    List<SelfPoint> self = new ArrayList<>();
    for (PlaneOutput o : outs) {
      events.addAll(o.events());
      self.addAll(o.selfPoints());
    }
    return events.isEmpty() && self.isEmpty() ? PlaneOutput.NONE : new PlaneOutput(events, self);
  }
}
