package io.sentinel.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sentinel.mqtt.RejectReason;
import java.util.EnumMap;
import java.util.Map;

/**
 * The gateway's meters on {@code /q/metrics}: {@code sentinel_ingest_rejected_total{reason}} (every
 * reason registered at zero, so a dashboard sees them before the first rejection), accepted
 * samples, passes, commands, and {@code sentinel_ruleset_revisions_total{outcome,reason}} for the
 * ruleset topic (the active revision itself is on the retained {@code status} topic).
 */
final class GatewayMetrics {
  private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);
  private final Counter accepted;
  private final Counter passes;
  private final Counter passSamples;
  private final Counter commandsDelivered;
  private final Counter commandsFailed;
  private final Map<String, Counter> revisions = new java.util.HashMap<>();

  /** The outcomes of a revision document; a rejection with its reason (RevisionGate.Reject). */
  private static final java.util.List<String> REVISION_OUTCOMES =
      java.util.List.of(
          "active/",
          "unchanged/",
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
    passes = Counter.builder("sentinel.engine.passes").register(registry);
    passSamples = Counter.builder("sentinel.engine.pass.samples").register(registry);
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

  void delivered() {
    commandsDelivered.increment();
  }

  void failed() {
    commandsFailed.increment();
  }

  /** {@code active}, {@code unchanged}, or {@code rejected} with its reason. */
  void revision(String outcome, String reason) {
    Counter c = revisions.get(outcome + "/" + reason);
    if (c != null) {
      c.increment();
    }
  }
}
