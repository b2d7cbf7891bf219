package io.sentinel.runtime;

import io.sentinel.arbitration.Decision;
import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.wire.Payloads;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Makes a pass visible (CONTRACT section 2): retained {@code claims/<id>} per decision, {@code
 * events/<kind>} for control events and actions (notify, pulse), retained {@code self/<name>}; and
 * the same to the operator page's live feed ({@link PassTap}).
 */
final class GatewayOutputs implements Outputs {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final MqttConnection mqtt;
  private final Topics topics;
  private final GatewayMetrics metrics;
  private final PassTap tap;
  private final java.util.function.Supplier<EngineLoop> loop;

  GatewayOutputs(
      MqttConnection mqtt,
      Topics topics,
      GatewayMetrics metrics,
      PassTap tap,
      java.util.function.Supplier<EngineLoop> loop) {
    this.mqtt = mqtt;
    this.topics = topics;
    this.metrics = metrics;
    this.tap = tap;
    this.loop = loop;
  }

  @Override
  public void passed(Instant now, PassResult result, PlaneOutput plane, int samples) {
    metrics.pass(samples);
    for (Decision d : result.decisions()) {
      LOG.debugf(
          "point %s -> %s (%s)",
          d.pointId(),
          d.value().map(Object::toString).orElse("released"),
          d.winner().map(w -> w.ruleId() + ", " + d.decidingKey()).orElse("no claim"));
      mqtt.publishRetained(topics.claims(d.pointId()), Payloads.claims(d, now));
    }
    List<ControlEvent> warmupLeft = new ArrayList<>();
    for (ControlEvent e : result.events()) {
      if (e.kind().equals(WarmupSummary.KIND)) {
        warmupLeft.add(e);
        mqtt.publishEvent(topics.events(e.kind()), Payloads.event(e));
      } else {
        event(e);
      }
    }
    WarmupSummary.lines(warmupLeft).forEach(LOG::info);
    if (warmupLeft.size() > WarmupSummary.ONE_BY_ONE) {
      warmupLeft.forEach(e -> LOG.debug(line(e)));
    }
    for (ActionFired a : result.actions()) {
      LOG.infof("action %s of %s: %s", a.kind(), a.ruleId(), a.fields());
      mqtt.publishEvent(topics.events(a.kind()), Payloads.action(a));
    }
    result.selfPoints().forEach(this::self);
    planeReported(plane);
    tap.passed(now, result);
    EngineLoop l = loop.get();
    if (l != null) {
      metrics.passTook(System.nanoTime() - l.passStartedNanos());
    }
  }

  @Override
  public void planeReported(PlaneOutput plane) {
    plane.events().forEach(this::event);
    plane.selfPoints().forEach(this::self);
    tap.reported(plane);
  }

  private void event(ControlEvent e) {
    LOG.info(line(e));
    mqtt.publishEvent(topics.events(e.kind()), Payloads.event(e));
  }

  /** {@code event warmup-left pump-run-on: all inputs live}: how an event is logged. */
  static String line(ControlEvent e) {
    return "event " + e.kind() + " " + e.subject() + ": " + e.message();
  }

  private void self(SelfPoint p) {
    mqtt.publishRetained(topics.self(p.name()), Payloads.self(p));
  }
}
