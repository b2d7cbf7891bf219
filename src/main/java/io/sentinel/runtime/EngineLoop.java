package io.sentinel.runtime;

import io.sentinel.command.CommandPlane;
import io.sentinel.command.Driver;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.Engine;
import io.sentinel.engine.SelfPoint;
import io.sentinel.pass.Admission;
import io.sentinel.point.Sample;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 *
 * <p>This class is what other threads call (offers, requests between passes, reads); the passes
 * themselves and the state they share are {@link LoopPasses}. Where a pass's outputs go: {@link
 * Outputs}, {@link PassLog}, {@link Follower}.
 */
public final class EngineLoop extends LoopPasses {
  private static final Logger LOG = Logger.getLogger(EngineLoop.class);

  /** On {@code context}: the gateway's, whose event loop the MQTT client shares (GatewayMqtt). */
  public EngineLoop(
      Vertx vertx,
      io.vertx.core.Context context,
      Engine engine,
      CommandPlane plane,
      InstantSource clock,
      Duration lagThreshold,
      Outputs outputs,
      PassLog passLog) {
    super(vertx, context, engine, plane, clock, lagThreshold, outputs, passLog);
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
}
