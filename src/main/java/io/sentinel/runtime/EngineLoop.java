package io.sentinel.runtime;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.Driver;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.pass.Admission;
import io.sentinel.pass.Pass;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Sample;
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
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
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

  /**
   * A sample on its way to a pass; {@code ack} (or null) releases the message that carried it;
   * {@code backlog}: delivered from the broker's queued backlog (docs/live.md).
   */
  private record Inbound(Observation observation, Runnable ack, Arrival arrival) {}

  /**
   * How a message arrived (docs/live.md): from the broker's queued {@code backlog}; {@code
   * waitingSince}, the device time from which its wait upstream is measured, when it says.
   */
  public record Arrival(boolean backlog, Optional<Instant> waitingSince) {
    public static final Arrival NOW = new Arrival(false, Optional.empty());
  }

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
    PassLog NONE = (now, observations, result) -> -1;

    /**
     * Keeps one pass; returns the sequence number the log gave its last row, or -1 when it did not
     * keep it (no log, or the log refused it and said so).
     */
    long record(Instant now, List<Observation> observations, PassResult result);

    /** Everything up to this sequence number is durable (the store's journal: on disk). */
    default long durableSeq() {
      return Long.MAX_VALUE;
    }

    /**
     * Registers what the log calls, on any thread, each time its durable mark has moved: waiting
     * acknowledgements are released then, not on a timer.
     */
    default void onDurable(Runnable moved) {}

    /** The command plane's and the runtime's own events (the engine's are in its pass). */
    default void events(List<ControlEvent> events) {}

    /**
     * Every message taken in passes up to {@code through} has been acknowledged (handed to the MQTT
     * client's PUBACK): the mark a restart matches messages delivered again after (V13).
     */
    default void acknowledged(long through, Instant at) {}
  }

  /**
   * What runs after each pass on the engine's context, fed what the pass took: a shadow revision
   * (docs/shadow.md, {@code ShadowRun}). It must not throw, and must not wait.
   */
  public interface Follower {
    Follower NONE = (now, samples, lagging, active, result) -> {};

    void passed(
        Instant now, List<Sample> samples, boolean lagging, Engine active, PassResult result);

    /** The active engine was handed over to a new rule set at {@code now}. */
    default void activated(Instant now, Engine active) {}

    /** An operator's request took effect on the active engine, before the pass at {@code now}. */
    default void operated(BiFunction<Engine, Instant, ?> request, Instant now) {}

    default Optional<Instant> nextDue() {
      return Optional.empty();
    }
  }

  private final Vertx vertx;
  private final Context context;
  private Follower follower = Follower.NONE;

  /** The engine (replaced by an activation, on the engine's context only) and the plane. */
  private final Pass composition;

  private final InstantSource clock;
  private final IngestLag lag;
  private final Outputs outputs;
  private final PassLog passLog;
  private final ConcurrentLinkedQueue<Inbound> inbox = new ConcurrentLinkedQueue<>();
  private final DurableAcks acks;
  private final AtomicBoolean wakeScheduled = new AtomicBoolean();
  private long timer = -1;
  private Instant timerDue;
  private long lastPassNanos = System.nanoTime() - CYCLE_NANOS;
  private volatile boolean stopped;
  private volatile Consumer<Throwable> fatal = e -> {};
  private volatile BiConsumer<Sample, String> refused = (s, why) -> {};

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
    this.composition = new Pass(engine, plane);
    this.clock = clock;
    this.lag = new IngestLag(lagThreshold);
    this.outputs = outputs;
    this.passLog = passLog;
    this.acks = new DurableAcks(context, passLog, clock);
    passLog.onDurable(acks::durableMoved);
  }

  /**
   * Who hears that the engine failed for good (an {@link Error} in a pass: out of memory, a stack
   * overflow): the loop takes no further pass.
   */
  public void onFatal(Consumer<Throwable> handler) {
    this.fatal = handler;
  }

  /** Sets what runs after each pass (on the engine's context, before any pass queued later). */
  public void follow(Follower f) {
    context.runOnContext(
        v -> {
          follower = f;
          rearm();
        });
  }

  /** Runs on the engine's context each time held acknowledgements were released. */
  public void onReleased(Runnable r) {
    acks.onReleased(r);
  }

  /** Who hears of a sample the pass could not take ({@link Admission}): counted, not lost. */
  public void onRefused(BiConsumer<Sample, String> handler) {
    this.refused = handler;
  }

  /** The first pass: the engine's start (fail-safe interlocks) reaches the command plane. */
  public void start() {
    context.runOnContext(v -> pass());
  }

  /**
   * Calls {@code beat} on the engine's context once the passes queued before it have run (so after
   * the first pass when called after {@link #start}), then every {@code every} while the loop takes
   * passes. A pass that hangs holds the context and so the beat; a stopped or lost engine beats no
   * more. For the service manager's watchdog (SystemdNotify, docs/deployment.md).
   */
  public void heartbeat(Optional<Duration> every, Runnable beat) {
    context.runOnContext(
        v -> {
          if (stopped) {
            return;
          }
          beat.run();
          every.ifPresent(
              period ->
                  vertx.setPeriodic(
                      Math.max(1, period.toMillis()),
                      id -> {
                        if (stopped) {
                          vertx.cancelTimer(id);
                        } else {
                          beat.run();
                        }
                      }));
        });
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
    if (stopped) {
      return; // no pass will take it (a stop, or the engine lost): the inbox must not grow
    }
    inbox.add(new Inbound(observation(sample, source, deviceTime), null, Arrival.NOW));
    wake();
  }

  /**
   * Queues the samples of one message and the acknowledgement that releases it to its sender; any
   * thread. {@code ack} runs on the engine's context once the pass that took the last of them is
   * durable in the log ({@link PassLog#durableSeq()}), or at once when there is no sample to take
   * (or the log did not keep the pass: it has said so). It runs at most once; a message whose pass
   * never became durable before a stop is not acknowledged, and the broker delivers it again.
   */
  public void offer(
      List<Sample> samples, String source, Optional<Instant> deviceTime, Runnable ack) {
    offer(samples, source, deviceTime, Arrival.NOW, ack);
  }

  /**
   * {@link #offer(List, String, Optional, Runnable)} with how the message arrived: a pass that
   * takes a sample from the backlog, or one that waited upstream over the lag threshold, runs under
   * ingest lag.
   */
  public void offer(
      List<Sample> samples,
      String source,
      Optional<Instant> deviceTime,
      Arrival arrival,
      Runnable ack) {
    if (stopped) {
      return; // not acknowledged: the broker delivers it again to the next session
    }
    if (samples.isEmpty()) {
      ack.run();
      return;
    }
    acks.taken();
    for (int i = 0; i < samples.size(); i++) {
      inbox.add(
          new Inbound(
              observation(samples.get(i), source, deviceTime),
              i == samples.size() - 1 ? ack : null,
              arrival));
    }
    wake();
  }

  /**
   * The broker's backlog is being drained (from a connect until its marker returns: docs/live.md):
   * passes run under ingest lag meanwhile. A pass runs at each change, so that the ingest-lagging
   * and ingest-caught-up events bracket the drain even when nothing else arrives.
   */
  public void draining(boolean now) {
    lag.draining(now);
    if (!stopped) {
      context.runOnContext(v -> pass());
    }
  }

  /** Whether the broker's backlog is being drained now. */
  public boolean drainingBacklog() {
    return lag.draining();
  }

  /** Samples taken from the broker's backlog since this loop started. */
  public long backlogSamples() {
    return lag.backlogSamples();
  }

  /** Messages taken (or waiting to be) whose acknowledgement waits for the log's durable mark. */
  public long unacknowledged() {
    return acks.unacknowledged();
  }

  /** The sequence number of the last pass whose messages were acknowledged as durable, or -1. */
  public long acknowledgedThrough() {
    return acks.acknowledgedThrough();
  }

  /**
   * Releases the acknowledgements whose passes are durable now, on the engine's context; also after
   * {@link #stop}, so that a clean stop acknowledges what the store flushed.
   */
  public CompletableFuture<Void> acknowledgeDurable() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          acks.releaseDurable();
          done.complete(null);
        });
    return done;
  }

  private static Observation observation(
      Sample sample, String source, Optional<Instant> deviceTime) {
    return new Observation(
        sample.pointId(), sample.value(), sample.quality(), source, deviceTime, sample.at());
  }

  private void wake() {
    if (wakeScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> soon());
    }
  }

  /** When the pass under way (or the last one) started, in {@link System#nanoTime()}. */
  public long passStartedNanos() {
    return lastPassNanos;
  }

  /** The age of the oldest sample the last pass took. */
  public Duration ingestLag() {
    return lag.last();
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
    onContext(() -> composition.plane().delivered(now(), commandId));
  }

  public void failed(String commandId) {
    onContext(() -> composition.plane().failed(now(), commandId));
  }

  public void readinessChanged(Driver driver) {
    onContext(() -> composition.plane().readinessChanged(now(), driver));
  }

  /** Reads the command plane's state on its own thread. */
  public <T> CompletableFuture<T> inspect(Function<CommandPlane, T> query) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(v -> result.complete(query.apply(composition.plane())));
    return result;
  }

  /**
   * Reads the engine's state (point values, rule states) on its own thread; the future fails with
   * what {@code query} threw, if it threw.
   */
  public <T> CompletableFuture<T> inspectEngine(Function<Engine, T> query) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          try {
            result.complete(query.apply(composition.engine()));
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  /**
   * Hands the engine over to a new rule set on its own context, between two passes: a pass first
   * brings the engine to now, then the activation's claim changes and decisions go to the log, the
   * command plane and the outputs like a pass's. {@code log} receives the activation before
   * anything else sees it (the recorder's revision entry). Fails when the loop has stopped or the
   * engine refused the rule set; once the engine has switched it completes, whatever fails after.
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
          Instant now;
          Engine.Activation a;
          try {
            pass();
            now = composition.engine().clock();
            a = composition.activate(next);
          } catch (RuntimeException e) {
            LOG.errorf(e, "SEN-024 activation of a new rule set failed");
            done.completeExceptionally(e);
            return;
          }
          // From here the new rule set runs: whatever fails next is said, and the activation
          // stands.
          try {
            try {
              log.accept(now, a);
            } catch (RuntimeException e) {
              LOG.errorf(e, "SEN-025 activation at %s not handed to the log", now);
            }
            PlaneOutput applied = composition.command(now, a);
            logEvents(applied);
            outputs.passed(now, a.result(), applied, 0);
            follower.activated(now, composition.engine());
          } catch (RuntimeException e) {
            LOG.errorf(e, "SEN-027 the outputs of the activation at %s failed", now);
          } finally {
            rearm();
            done.complete(a);
          }
        });
    return done;
  }

  /**
   * Runs an operator's request on the engine's context, between two passes, and a pass right after
   * it so that it takes effect at once (logged, audited and published like any pass). {@code
   * request} is handed the engine and the instant that pass runs at (an idle engine's own clock
   * lags the wall clock), and may refuse by throwing; the future then fails with what it threw, and
   * no pass runs.
   */
  public <T> CompletableFuture<T> operate(BiFunction<Engine, Instant, T> request) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          if (stopped) {
            result.completeExceptionally(new IllegalStateException("the engine is stopped"));
            return;
          }
          T answer;
          Instant at = now();
          try {
            answer = request.apply(composition.engine(), at);
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
          }
          follower.operated(request, at);
          pass();
          result.complete(answer);
        });
    return result;
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
    Instant engineClock = composition.engine().clock();
    return now.isBefore(engineClock) ? engineClock : now;
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
    List<Runnable> messageAcks = new ArrayList<>();
    lag.begin();
    Instant engineClock = composition.engine().clock();
    for (Inbound in; (in = inbox.poll()) != null; ) {
      Observation o = in.observation();
      if (in.ack() != null) {
        messageAcks.add(in.ack());
      }
      lag.took(o, in.arrival());
      Instant received = o.receivedAt();
      // A sample stamped before the previous pass ran is taken at that pass's instant; the log
      // keeps the instant the engine took it at, which is what a replay feeds it by.
      Instant at =
          received.isBefore(engineClock) ? engineClock : received.isAfter(now) ? now : received;
      Observation taken =
          at.equals(received)
              ? o
              : new Observation(
                  o.pointId(), o.value(), o.quality(), o.source(), o.observedAt(), at);
      Sample sample = taken.toSample();
      Optional<String> refusal = Admission.refusal(composition.engine().points(), sample);
      if (refusal.isPresent()) {
        // One sample the pass cannot hold costs only itself: counted, and left out of the log.
        refused.accept(sample, refusal.get());
        continue;
      }
      observations.add(taken);
      batch.add(sample);
    }
    boolean lagNow = lag.end(now);
    // The lag state of a pass holds for every sample it took, each logged at the instant it was
    // taken: the change is stamped at the first of them, so that a replay feeding them at those
    // instants takes them all under it (docs/replay.md).
    Instant lagFrom =
        observations.stream().map(Observation::receivedAt).min(Instant::compareTo).orElse(now);
    long[] seq = {-1};
    try {
      Pass.Outcome o =
          composition.run(now, batch, lagNow, (t, r) -> seq[0] = log(t, observations, r));
      PlaneOutput planeOut = Pass.merge(o.plane(), lag.change(lagNow, lagFrom));
      logEvents(planeOut);
      outputs.passed(now, o.result(), planeOut, batch.size());
      follower.passed(now, batch, lagNow, composition.engine(), o.result());
    } catch (RuntimeException e) {
      // A defect must not stop the gateway: the pass is lost and said so, the next one runs.
      LOG.errorf(e, "SEN-020 engine pass at %s failed with %d samples", now, batch.size());
    } catch (Error e) {
      stopped = true;
      LOG.fatalf(e, "SEN-022 the engine failed at %s: it takes no further pass", now);
      fatal.accept(e);
      throw e;
    }
    acks.awaitDurable(seq[0], messageAcks);
    rearm();
  }

  /** The log must not cost a pass its commands: a failure to hand it over is said, not thrown. */
  private long log(Instant now, List<Observation> observations, PassResult result) {
    try {
      return passLog.record(now, observations, result);
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-021 pass at %s not handed to the log", now);
      return -1;
    }
  }

  private void logEvents(PlaneOutput out) {
    if (out.events().isEmpty()) {
      return;
    }
    try {
      passLog.events(out.events());
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-026 %d events not handed to the log", out.events().size());
    }
  }

  private void rearm() {
    Optional<Instant> next = composition.nextDue();
    Optional<Instant> followed = follower.nextDue();
    if (followed.isPresent() && (next.isEmpty() || followed.get().isBefore(next.get()))) {
      next = followed;
    }
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
}
