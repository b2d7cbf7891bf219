package io.sentinel.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sentinel.command.Command;
import io.sentinel.mqtt.RejectReason;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's meters on {@code /q/metrics}: {@code sentinel_ingest_rejected_total{reason}} (every
 * reason registered at zero, so a dashboard sees them before the first rejection), accepted
 * samples, passes, commands, and {@code sentinel_ruleset_revisions_total{outcome,reason}} for the
 * ruleset topic (the active revision itself is on the retained {@code status} topic), the pass
 * duration histogram, MQTT reconnects and command outcomes by kind. Every meter has help text
 * (docs/metrics.md).
 */
final class GatewayMetrics {
  private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);
  private final Counter accepted;
  private final Counter passes;
  private final Counter passSamples;
  private final Counter commandsDelivered;
  private final Counter commandsFailed;
  private final Map<String, Counter> revisions = new java.util.HashMap<>();
  private final Timer passDuration;
  private final Counter reconnects;
  private final MeterRegistry registry;

  /** Commands handed to a driver and not yet confirmed or failed: their kind, for the outcome. */
  private final Map<String, Command.Kind> pendingKinds = new ConcurrentHashMap<>();

  /** Past this many unconfirmed commands (a driver that never answers), kinds are not kept. */
  private static final int MAX_PENDING_KINDS = 10_000;

  /** The outcomes of a revision document; a rejection with its reason (RevisionGate.Reject). */
  private static final java.util.List<String> REVISION_OUTCOMES =
      java.util.List.of(
          "active/",
          "unchanged/",
          "repeated/",
          "shadow/",
          "rejected/invalid",
          "rejected/stale",
          "rejected/unsigned",
          "rejected/forged",
          "rejected/unreviewed");

  GatewayMetrics(MeterRegistry registry) {
    for (String o : REVISION_OUTCOMES) {
      String[] parts = o.split("/", -1);
      revisions.put(
          o,
          Counter.builder("sentinel.ruleset.revisions")
              .description("Revision documents taken from the ruleset topic, by outcome")
              .tag("outcome", parts[0])
              .tag("reason", parts[1])
              .register(registry));
    }
    for (RejectReason r : RejectReason.values()) {
      rejected.put(
          r,
          Counter.builder("sentinel.ingest.rejected")
              .description("Ingested payloads (or a point's part of one) rejected, by reason")
              .tag("reason", r.wireName())
              .register(registry));
    }
    accepted =
        Counter.builder("sentinel.ingest.accepted")
            .description("Samples taken from MQTT")
            .register(registry);
    this.registry = registry;
    passes =
        Counter.builder("sentinel.engine.passes")
            .description("Engine passes run (a pass takes every sample queued since the last)")
            .register(registry);
    passSamples =
        Counter.builder("sentinel.engine.pass.samples")
            .description("Samples the engine's passes took")
            .register(registry);
    passDuration =
        Timer.builder("sentinel.pass.duration")
            .description(
                "How long a pass took on the engine's context: the engine, the log's hand-over,"
                    + " the command plane and the publication of its outputs")
            .serviceLevelObjectives(
                Duration.ofNanos(100_000),
                Duration.ofNanos(250_000),
                Duration.ofNanos(500_000),
                Duration.ofMillis(1),
                Duration.ofMillis(2),
                Duration.ofMillis(5),
                Duration.ofMillis(10),
                Duration.ofMillis(25),
                Duration.ofMillis(50),
                Duration.ofMillis(100),
                Duration.ofMillis(250),
                Duration.ofSeconds(1))
            .register(registry);
    reconnects =
        Counter.builder("sentinel.mqtt.reconnects")
            .description("MQTT sessions established again after the first one of this start")
            .register(registry);
    for (Command.Kind k : Command.Kind.values()) {
      for (String outcome : new String[] {"sent", "delivered", "failed"}) {
        commandCounter(k, outcome);
      }
    }
    commandsDelivered =
        Counter.builder("sentinel.commands.delivered")
            .description("Commands a driver confirmed")
            .register(registry);
    commandsFailed =
        Counter.builder("sentinel.commands.failed")
            .description("Command deliveries that failed (and are handed over again)")
            .register(registry);
  }

  void rejected(RejectReason reason) {
    rejected.get(reason).increment();
  }

  double rejectedTotal() {
    return rejected.values().stream().mapToDouble(Counter::count).sum();
  }

  void accepted(int samples) {
    accepted.increment(samples);
  }

  void pass(int samples) {
    passes.increment();
    passSamples.increment(samples);
  }

  void delivered(String commandId) {
    commandsDelivered.increment();
    outcome(commandId, "delivered");
  }

  void failed(String commandId) {
    commandsFailed.increment();
    outcome(commandId, "failed");
  }

  /** A command handed to its driver (sentinel_commands_total{kind, outcome="sent"}). */
  void sent(Command c) {
    if (pendingKinds.size() < MAX_PENDING_KINDS) {
      pendingKinds.put(c.commandId(), c.kind());
    }
    commandCounter(c.kind(), "sent").increment();
  }

  private void outcome(String commandId, String outcome) {
    Command.Kind k =
        "failed".equals(outcome) ? pendingKinds.get(commandId) : pendingKinds.remove(commandId);
    if (k != null) {
      commandCounter(k, outcome).increment();
    }
  }

  private Counter commandCounter(Command.Kind kind, String outcome) {
    return Counter.builder("sentinel.commands")
        .description(
            "Commands by kind (assert, release, pulse-on, pulse-off, fade) and outcome: sent to"
                + " the driver, delivered (confirmed), failed (handed over again)")
        .tag("kind", kind.wireName())
        .tag("outcome", outcome)
        .register(registry);
  }

  /** The wall time of one pass, from its start ({@link EngineLoop#passStartedNanos}). */
  void passTook(long nanos) {
    passDuration.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /** An MQTT session came up; every one after the first is a reconnect. */
  void mqttConnected(boolean first) {
    if (!first) {
      reconnects.increment();
    }
  }

  /**
   * {@code active}, {@code unchanged}, {@code repeated} (a document refused before, delivered
   * again), or {@code rejected} with its reason.
   */
  void revision(String outcome, String reason) {
    Counter c = revisions.get(outcome + "/" + reason);
    if (c != null) {
      c.increment();
    }
  }
}
