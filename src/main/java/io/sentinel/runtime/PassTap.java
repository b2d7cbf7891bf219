package io.sentinel.runtime;

import io.sentinel.arbitration.Decision;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.point.Transition;
import io.sentinel.wire.Payloads;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import io.vertx.core.json.JsonObject;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each pass changed, for the operator page's server-sent events (the API's {@code
 * EventStream}): point transitions, decisions (as {@code claims/<id>} carries them), control events
 * and actions, tapped where {@link GatewayOutputs} publishes them to MQTT. The engine's context
 * only hands the pass's immutable result to a thread of this feed, and only while someone listens;
 * past {@link #MAX_PENDING} passes not yet sent the feed drops them and tells its listeners to read
 * the state again ({@code resync}), so a slow browser never holds the engine up.
 */
@ApplicationScoped
public class PassTap {
  static final int MAX_PENDING = 512;

  private final BroadcastProcessor<String> out = BroadcastProcessor.create();
  private final ExecutorService sender =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sentinel-live-feed");
            t.setDaemon(true);
            return t;
          });
  private final AtomicInteger listeners = new AtomicInteger();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicBoolean dropped = new AtomicBoolean();

  /** Every message from now on, one JSON object each, with its {@code type}. */
  public Multi<String> messages() {
    return out.toHotStream()
        .onSubscription()
        .invoke(() -> listeners.incrementAndGet())
        .onTermination() // completion, failure and cancellation alike
        .invoke(() -> listeners.decrementAndGet())
        .onOverflow()
        .drop();
  }

  /** Whether anyone listens now (a pass costs the engine nothing otherwise). */
  public boolean listened() {
    return listeners.get() > 0;
  }

  /** On the engine's context, after the pass's outputs went to MQTT. */
  void passed(Instant now, PassResult result) {
    if (listened() && !result.isEmpty()) {
      hand(() -> sendPass(now, result));
    }
  }

  /** On the engine's context: the command plane's events (also between passes). */
  void reported(PlaneOutput plane) {
    if (listened() && !plane.events().isEmpty()) {
      List<ControlEvent> events = plane.events();
      hand(() -> events.forEach(this::sendEvent));
    }
  }

  private void hand(Runnable send) {
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      dropped.set(true);
      return;
    }
    sender.execute(
        () -> {
          pending.decrementAndGet();
          if (dropped.compareAndSet(true, false)) {
            out.onNext(new JsonObject().put("type", "resync").encode());
          }
          send.run();
        });
  }

  private void sendPass(Instant now, PassResult result) {
    for (Transition t : result.transitions()) {
      out.onNext(
          new JsonObject()
              .put("type", "point")
              .put("id", t.pointId())
              .put("value", t.current().value().toPlain())
              .put("quality", t.current().quality().wireName())
              .put("since", t.current().since().toString())
              .encode());
    }
    for (Decision d : result.decisions()) {
      out.onNext(Payloads.claimsJson(d, now).put("type", "claim").encode());
    }
    result.events().forEach(this::sendEvent);
    for (ActionFired a : result.actions()) {
      out.onNext(
          new JsonObject()
              .put("type", "event")
              .put("kind", a.kind())
              .put("subject", a.ruleId())
              .put("message", String.valueOf(a.fields()))
              .put("t", a.at().toString())
              .encode());
    }
  }

  private void sendEvent(ControlEvent e) {
    out.onNext(
        new JsonObject()
            .put("type", "event")
            .put("kind", e.kind())
            .put("subject", e.subject())
            .put("message", e.message())
            .put("t", e.at().toString())
            .encode());
  }

  @PreDestroy
  void close() {
    out.onComplete();
    sender.shutdownNow();
  }
}
