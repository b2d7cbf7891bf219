package io.sentinel.runtime;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.Engine;
import io.sentinel.engine.PassResult;
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * {@link EngineLoop}'s passes, on the engine's context: the samples queued in the inbox taken in
 * one pass at most once a millisecond ({@link #soon}), the pass handed to the log, the outputs and
 * the follower, and the timer armed for whatever the engine, the plane or the follower has due next
 * ({@link #rearm}). The state both share is here; {@link EngineLoop} is what other threads call.
 * (Split from {@code EngineLoop} by moving its fields and these methods unchanged.)
 */
abstract class LoopPasses {
  private static final Logger LOG = Logger.getLogger(EngineLoop.class);
  private static final long CYCLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * A sample on its way to a pass; {@code ack} (or null) releases the message that carried it;
   * {@code backlog}: delivered from the broker's queued backlog (docs/live.md).
   */
  record Inbound(Observation observation, Runnable ack, Arrival arrival) {}

  final Vertx vertx;
  final Context context;
  Follower follower = Follower.NONE;

  /** The engine (replaced by an activation, on the engine's context only) and the plane. */
  final Pass composition;

  final InstantSource clock;
  final IngestLag lag;
  final Outputs outputs;
  final PassLog passLog;
  final ConcurrentLinkedQueue<Inbound> inbox = new ConcurrentLinkedQueue<>();
  final DurableAcks acks;
  final AtomicBoolean wakeScheduled = new AtomicBoolean();
  long timer = -1;
  Instant timerDue;
  long lastPassNanos = System.nanoTime() - CYCLE_NANOS;
  volatile boolean stopped;
  volatile Consumer<Throwable> fatal = e -> {};
  volatile BiConsumer<Sample, String> refused = (s, why) -> {};

  LoopPasses(
      Vertx vertx,
      Context context,
      Engine engine,
      CommandPlane plane,
      InstantSource clock,
      Duration lagThreshold,
      Outputs outputs,
      PassLog passLog) {
    this.vertx = vertx;
    this.context = context;
    this.composition = new Pass(engine, plane);
    this.clock = clock;
    this.lag = new IngestLag(lagThreshold);
    this.outputs = outputs;
    this.passLog = passLog;
    this.acks = new DurableAcks(context, passLog, clock);
    passLog.onDurable(acks::durableMoved);
  }

  static Observation observation(Sample sample, String source, Optional<Instant> deviceTime) {
    return new Observation(
        sample.pointId(), sample.value(), sample.quality(), source, deviceTime, sample.at());
  }

  void wake() {
    if (wakeScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> soon());
    }
  }

  void soon() {
    long since = System.nanoTime() - lastPassNanos;
    if (since >= CYCLE_NANOS) {
      pass();
    } else {
      vertx.setTimer(1, id -> pass());
    }
  }

  /** Time only runs forward for the engine, even if the wall clock steps back. */
  Instant now() {
    Instant now = clock.instant();
    Instant engineClock = composition.engine().clock();
    return now.isBefore(engineClock) ? engineClock : now;
  }

  void pass() {
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
      // The lag change is said first: it holds for the whole pass, so a rule that leaves warmup
      // in the pass where the drain ends is logged after ingest-caught-up, not before it.
      PlaneOutput planeOut = Pass.merge(lag.change(lagNow, lagFrom), o.plane());
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
  long log(Instant now, List<Observation> observations, PassResult result) {
    try {
      return passLog.record(now, observations, result);
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-021 pass at %s not handed to the log", now);
      return -1;
    }
  }

  void logEvents(PlaneOutput out) {
    if (out.events().isEmpty()) {
      return;
    }
    try {
      passLog.events(out.events());
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-026 %d events not handed to the log", out.events().size());
    }
  }

  void rearm() {
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
