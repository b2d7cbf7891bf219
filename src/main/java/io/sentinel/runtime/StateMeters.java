package io.sentinel.runtime;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.sentinel.command.CommandPlane;
import io.sentinel.engine.Engine;
import io.sentinel.engine.RuleState;
import io.sentinel.engine.RuleStatus;
import io.sentinel.point.Direction;
import io.sentinel.point.Quality;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gauges of the engine's state for {@code /q/metrics}: rules per state, points per quality, outputs
 * whose interlock command is unenforced, ingest lag, MQTT and database up. The engine's state is
 * read on its own context every {@link #EVERY_MS} ms (one short task, like an API read), never from
 * the scrape's thread; a scrape reads the last counts.
 */
@ApplicationScoped
public class StateMeters {
  static final long EVERY_MS = 2000;

  @Inject Gateway gateway;
  @Inject MeterRegistry registry;
  @Inject Vertx vertx;

  private final Map<RuleState, AtomicLong> rules = new EnumMap<>(RuleState.class);
  private final Map<Quality, AtomicLong> points = new EnumMap<>(Quality.class);
  private final AtomicLong unenforced = new AtomicLong();
  private final java.util.List<io.micrometer.core.instrument.Meter> registered =
      new java.util.ArrayList<>();
  private long timer = -1;

  void onStart(@Observes StartupEvent event) {
    for (RuleState s : RuleState.values()) {
      AtomicLong n = new AtomicLong();
      rules.put(s, n);
      registered.add(
          Gauge.builder("sentinel.rules", n, AtomicLong::get)
              .description("Rules of the active revision in each state")
              .tag("state", s.wireName())
              .register(registry));
    }
    for (Quality q : Quality.values()) {
      AtomicLong n = new AtomicLong();
      points.put(q, n);
      registered.add(
          Gauge.builder("sentinel.points", n, AtomicLong::get)
              .description("Registered points (derived ones too) by quality; stale ones show here")
              .tag("quality", q.wireName())
              .register(registry));
    }
    registered.add(
        Gauge.builder("sentinel.outputs.interlock.unenforced", unenforced, AtomicLong::get)
            .description(
                "Outputs whose interlock-band command is not confirmed within"
                    + " sentinel.command.interlock-bound")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.ingest.lag", gateway, StateMeters::lagSeconds)
            .description("Age of the oldest sample the last pass took")
            .baseUnit("seconds")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.ingest.draining", gateway, StateMeters::draining)
            .description(
                "1 while the gateway drains the broker's queued backlog (from a connect until its"
                    + " backlog marker returns: docs/live.md), else 0")
            .register(registry));
    registered.add(
        io.micrometer.core.instrument.FunctionCounter.builder(
                "sentinel.ingest.backlog.samples", gateway, StateMeters::backlogSamples)
            .description(
                "Samples taken from the broker's backlog (they update values, no rule leaves warmup"
                    + " on them)")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.ingest.unacknowledged", gateway, Gateway::unacknowledged)
            .description(
                "MQTT messages taken whose acknowledgement waits for their pass to be durable in"
                    + " the journal")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.ingest.unsettled", gateway, Gateway::unsettled)
            .description(
                "MQTT messages the gateway acknowledged that the MQTT client has not yet"
                    + " acknowledged to the broker (docs/runtime.md, Overload)")
            .register(registry));
    registered.add(
        Gauge.builder(
                "sentinel.ingest.paused",
                gateway,
                g -> g.intake() != null && g.intake().paused() ? 1 : 0)
            .description(
                "1 while the gateway does not read from the broker: sentinel.ingest.max-held MQTT"
                    + " messages wait for the journal (docs/runtime.md, Overload), else 0")
            .register(registry));
    registered.add(
        io.micrometer.core.instrument.FunctionCounter.builder(
                "sentinel.ingest.pauses",
                gateway,
                g -> g.intake() == null ? 0 : g.intake().pauses())
            .description("Times the gateway stopped reading from the broker at its intake bound")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.mqtt.connected", gateway, g -> g.connected() ? 1 : 0)
            .description("1 while the MQTT session is up, else 0")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.database.up", gateway, g -> g.databaseReady() ? 1 : 0)
            .description(
                "1 while the journal writes to PostgreSQL, 0 while it spools (or the store is shut)")
            .register(registry));
    registered.add(
        Gauge.builder("sentinel.engine.running", gateway, g -> g.running() ? 1 : 0)
            .description("1 while the engine takes passes, else 0")
            .register(registry));
    timer = vertx.setPeriodic(EVERY_MS, id -> sample());
  }

  /**
   * Its gauges go with it: a registry that outlives this start (tests start several gateways in one
   * JVM) would otherwise keep gauges of objects gone, and refuse this start's as duplicates.
   */
  void onStop(@Observes ShutdownEvent event) {
    vertx.cancelTimer(timer);
    registered.forEach(registry::remove);
    registered.clear();
  }

  private static double draining(Gateway g) {
    EngineLoop l = g.loop();
    return l != null && l.drainingBacklog() ? 1 : 0;
  }

  private static double backlogSamples(Gateway g) {
    EngineLoop l = g.loop();
    return l == null ? 0 : l.backlogSamples();
  }

  private static double lagSeconds(Gateway g) {
    EngineLoop l = g.loop();
    return l == null ? 0 : l.ingestLag().toNanos() / 1e9;
  }

  /** On a Vert.x thread: hands the counting to the engine's context, waits for nothing. */
  private void sample() {
    EngineLoop l = gateway.loop();
    if (l == null) {
      return;
    }
    l.inspectEngine(this::countEngine);
    l.inspect(this::countPlane);
  }

  private boolean countEngine(Engine e) {
    Map<RuleState, Long> byState = new EnumMap<>(RuleState.class);
    for (RuleStatus s : e.statuses()) {
      byState.merge(s.state(), 1L, Long::sum);
    }
    rules.forEach((s, n) -> n.set(byState.getOrDefault(s, 0L)));
    Map<Quality, Long> byQuality = new EnumMap<>(Quality.class);
    for (int i = 0; i < e.points().size(); i++) {
      byQuality.merge(e.points().state(i).quality(), 1L, Long::sum);
    }
    points.forEach((q, n) -> n.set(byQuality.getOrDefault(q, 0L)));
    return true;
  }

  private boolean countPlane(CommandPlane plane) {
    io.sentinel.site.Site site = gateway.site();
    if (site == null) {
      return false;
    }
    long n =
        site.ruleSet().registry().points().values().stream()
            .filter(spec -> spec.direction() != Direction.IN)
            .filter(
                spec ->
                    plane
                        .status(spec.id())
                        .filter(CommandPlane.PointCommands::interlockUnenforced)
                        .isPresent())
            .count();
    unenforced.set(n);
    return true;
  }
}
