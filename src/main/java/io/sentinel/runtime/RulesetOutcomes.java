package io.sentinel.runtime;

import io.sentinel.command.PlaneOutput;
import io.sentinel.door.Door;
import io.sentinel.door.Flaw;
import io.sentinel.engine.ControlEvent;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.RejectReason;
import io.sentinel.mqtt.Topics;
import io.sentinel.rule.RuleChanges;
import io.sentinel.site.revision.CanonicalBody;
import io.sentinel.site.revision.RevisionCodes;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.store.Revisions;
import io.sentinel.wire.Payloads;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * What the {@link RulesetTopic} says of each document it decided: the retained {@code
 * ruleset/status}, a control event, a refusal's record in {@code ruleset_rejections}, the metrics
 * and the log. Used on the topic's thread only.
 */
final class RulesetOutcomes {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final Topics topics;
  private final EngineLoop loop;
  private final MqttConnection mqtt;
  private final Revisions revisions;
  private final InstantSource clock;
  private final GatewayMetrics metrics;
  private final LongSupplier activeRevision;

  /** The content hash of the document the last status was about ("" when it was unreadable). */
  private String lastStatusHash;

  /**
   * SHA-256 of the bytes of the document being answered: two documents with one content hash (the
   * same rules, signed and then reviewed) are told apart by it, so that a refusal of the one said
   * again is not taken as the answer to the other.
   */
  private String documentHash = "";

  RulesetOutcomes(
      Topics topics,
      EngineLoop loop,
      MqttConnection mqtt,
      Revisions revisions,
      InstantSource clock,
      GatewayMetrics metrics,
      LongSupplier activeRevision) {
    this.topics = topics;
    this.loop = loop;
    this.mqtt = mqtt;
    this.revisions = revisions;
    this.clock = clock;
    this.metrics = metrics;
    this.activeRevision = activeRevision;
  }

  /** The content hash of the document the last status was about ("" when it was unreadable). */
  String lastStatusHash() {
    return lastStatusHash;
  }

  /** The document whose outcomes follow, until the next one: the topic's thread only. */
  void answering(byte[] document) {
    documentHash = CanonicalBody.sha256(document);
  }

  /** An accepted revision the engine did not take (it failed to start): refused as invalid. */
  void refusedByEngine(RevisionGate.Accept a, String document, String why) {
    Problems p = new Problems();
    p.error(RevisionCodes.REV_098, topics.ruleset(), 0, "", why);
    reject(
        new RevisionGate.Reject(OptionalLong.of(a.revision()), "invalid", p.sorted()),
        a.contentHash(),
        Optional.of(document));
  }

  /**
   * A document refused: counted, logged, recorded in {@code ruleset_rejections}, said on the status
   * and as an event. {@code hash} is "" and {@code document} empty when they could not be read.
   */
  void reject(RevisionGate.Reject r, String hash, Optional<String> document) {
    String which = r.revision().isPresent() ? "revision " + r.revision().getAsLong() : "revision";
    List<Problem> errors = r.problems().stream().filter(Problem::isError).toList();
    metrics.revision("rejected", r.reason());
    for (Problem p : errors) {
      doorFlaw(p.code()).ifPresent(f -> metrics.rejected(RejectReason.of(f)));
    }
    LOG.warnf(
        "SEN-037 %s rejected (%s), revision %d stays active: %d problem(s)",
        which, r.reason(), activeRevision.getAsLong(), errors.size());
    r.problems().forEach(p -> LOG.warn(Door.printable(p.format(), 2000)));
    try {
      revisions.recordRejected(
          r.revision(),
          hash.isEmpty() ? Optional.empty() : Optional.of(hash),
          topics.site(),
          r.reason(),
          r.problems(),
          document,
          activeRevision.getAsLong(),
          clock.instant());
    } catch (Exception e) {
      LOG.warnf(
          "SEN-DB-006 %s was rejected but the rejection is not recorded in ruleset_rejections (%s):"
              + " the status topic and the control events still say it",
          which, e.getMessage());
    }
    status(
        r.revision(),
        "rejected",
        hash,
        r.problems(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
    event(
        "ruleset-rejected",
        r.revision().orElse(0),
        r.reason() + ": " + (errors.isEmpty() ? "" : errors.get(0).format()));
  }

  void status(
      OptionalLong revision,
      String state,
      String hash,
      List<Problem> problems,
      Optional<String> signer,
      Optional<String> reviewer,
      Optional<RuleChanges> changes) {
    mqtt.publishRetained(
        topics.rulesetStatus(),
        Payloads.rulesetStatus(
            revision.isPresent() ? Optional.of(revision.getAsLong()) : Optional.empty(),
            state,
            activeRevision.getAsLong(),
            hash.isEmpty() ? Optional.empty() : Optional.of(hash),
            documentHash,
            problems,
            signer,
            reviewer,
            changes,
            clock.instant()));
    lastStatusHash = hash;
  }

  void event(String kind, long revision, String message) {
    ControlEvent e =
        new ControlEvent(
            kind, revision > 0 ? "revision " + revision : "revision", message, clock.instant());
    loop.onContext(() -> new PlaneOutput(List.of(e), List.of()));
  }

  /** A problem that is the door's refusal, counted under its reason like an MQTT rejection. */
  private static Optional<Flaw> doorFlaw(String code) {
    if (code.equals(RevisionCodes.REV_008.id())) {
      return Optional.of(Flaw.OVERSIZE);
    }
    if (code.equals(RevisionCodes.REV_009.id())) {
      return Optional.of(Flaw.BAD_ENCODING);
    }
    return YamlFile.doorFlaw(code);
  }
}
