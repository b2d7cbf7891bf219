package io.sentinel.runtime;

import io.sentinel.door.Door;
import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.LiveFacts;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.wire.Payloads;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * On the MQTT client's thread (the engine's event loop where the two share it: GatewayMqtt):
 * decode, queue samples, count and report rejections. The message is acknowledged to the broker
 * (manual acknowledgement, {@link MqttConnection}) once the pass that took its samples is durable
 * in the journal; a message with no sample to take (rejected: counted and logged here) at once.
 */
final class MqttIngest implements MqttConnection.Inbound {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private final Topics topics;

  /** {@code topics.ruleset()}, made once: every message is compared with it. */
  private final String rulesetTopicName;

  private final IngestDecoder decoder;
  private final LiveFacts facts;
  private final Supplier<EngineLoop> loop;
  private final Supplier<RulesetTopic> rulesetTopic;
  private final Supplier<MqttConnection> mqtt;
  private final RecentMessages recent = new RecentMessages();

  /** Topics whose source string is kept ({@link #sourceOf}). */
  private static final int SOURCES_KEPT = 8_192;

  private final Map<String, String> sources = new ConcurrentHashMap<>();

  /**
   * What a message delivered again is matched against: the log's tail at start, then, after a
   * reconnect that found the session, the messages this process took.
   */
  private volatile Redelivery matching = Redelivery.NONE;

  private final GatewayMetrics metrics;
  private final InstantSource clock;
  private final Map<String, AtomicLong> lastRejectionWarning = new ConcurrentHashMap<>();
  private volatile Runnable taken = () -> {};

  MqttIngest(
      Topics topics,
      IngestDecoder decoder,
      LiveFacts facts,
      Supplier<EngineLoop> loop,
      Supplier<RulesetTopic> rulesetTopic,
      Supplier<MqttConnection> mqtt,
      GatewayMetrics metrics,
      InstantSource clock) {
    this.topics = topics;
    this.rulesetTopicName = topics.ruleset();
    this.decoder = decoder;
    this.facts = facts;
    this.loop = loop;
    this.rulesetTopic = rulesetTopic;
    this.mqtt = mqtt;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** The log's tail, read at start before the first connect (docs/live.md). */
  void matchAgainst(Redelivery tail) {
    matching = tail;
  }

  /** A connection is up (any connect). */
  void connected() {
    recent.connected();
  }

  /** The connection ended: what was not acknowledged on it the broker delivers again. */
  void connectionLost() {
    recent.connectionLost();
  }

  /**
   * A connect found the session, so the broker delivers again what it holds unacknowledged: after a
   * reconnect of this process, that is matched against the messages it took (docs/live.md).
   */
  void sessionResumed() {
    recent.connected();
    Redelivery r = recent.redelivery();
    if (r == null) {
      return;
    }
    matching = r;
    if (r != Redelivery.NONE) {
      LOG.infof(
          "SEN-143 the MQTT connection ended before the broker had every acknowledgement: a"
              + " message it delivers again that repeats one taken is acknowledged once that is"
              + " durable and not taken twice");
    }
  }

  /** What runs after each message taken, on the client's thread (the intake bound's check). */
  void onTaken(Runnable r) {
    taken = r;
  }

  /**
   * A retained delivery enters as restored, a device timestamp makes a sample stale or rejects it,
   * and a message from the broker's backlog is taken under ingest lag (docs/live.md).
   */
  @Override
  public void message(
      String topic, byte[] payload, MqttConnection.Delivery delivery, Runnable acknowledge) {
    EngineLoop l = loop.get();
    if (l == null) {
      // Stopping: not acknowledged, so the broker delivers it again to the next session.
      return;
    }
    Instant at = clock.instant();
    if (topic.equals(rulesetTopicName)) {
      RulesetTopic r = rulesetTopic.get();
      if (r != null) {
        r.offer(payload);
      }
      // At once: the document is retained, and every start subscribes again and gets it again, so
      // holding this acknowledgement over the decision and its database writes protects nothing.
      acknowledge.run();
      return;
    }
    IngestDecoder.Decoded decoded =
        facts.apply(topic, decoder.decode(topic, payload, at), delivery, at);
    String source = sourceOf(topic, !decoded.samples().isEmpty());
    if (matching.repeats(source, decoded.samples(), decoded.deviceTime(), delivery, acknowledge)) {
      return; // delivered again and taken already: its PUBACK only, once that is durable
    }
    l.offer(
        decoded.samples(),
        source,
        decoded.deviceTime(),
        new Arrival(delivery.backlog(), facts.waitingSince(decoded)),
        recent.taken(source, decoded.samples(), decoded.deviceTime(), acknowledge));
    metrics.accepted(decoded.samples().size());
    taken.run();
    for (IngestDecoder.Rejection r : decoded.rejections()) {
      metrics.rejected(r.reason());
      mqtt.get()
          .publishEvent(
              topics.events("ingest-rejected"),
              Payloads.rejection(r.reason().wireName(), r.topic(), r.pointId(), r.message(), at));
      warnRarely(r);
    }
  }

  /**
   * {@code mqtt:<topic>}, one string a topic whose messages carry samples instead of one a message:
   * the kept messages hold it for redeliveries, about half a second at 10,000/s, and each young
   * collection copied every one of them (docs/load.md, session 16). Bounded, so that a flood of
   * topics costs no more than itself.
   */
  private String sourceOf(String topic, boolean kept) {
    String source = sources.get(topic);
    if (source == null) {
      source = "mqtt:" + topic;
      if (kept && sources.size() < SOURCES_KEPT) {
        sources.put(topic, source);
      }
    }
    return source;
  }

  /** A flood of bad payloads is counted in full but logged at most every 10 s per reason. */
  private void warnRarely(IngestDecoder.Rejection r) {
    AtomicLong last =
        lastRejectionWarning.computeIfAbsent(r.reason().wireName(), k -> new AtomicLong());
    long now = System.nanoTime();
    long previous = last.get();
    if ((previous == 0 || now - previous > Duration.ofSeconds(10).toNanos())
        && last.compareAndSet(previous, now)) {
      // Escaped: a topic or a quoted value may carry ANSI escapes or NUL (docs/hostile-input.md).
      LOG.warnf(
          "SEN-006 rejected %s on %s: %s (counted in sentinel_ingest_rejected_total)",
          r.reason().wireName(), Door.printable(r.topic(), 200), Door.printable(r.message(), 400));
    } else {
      LOG.debugf(
          "rejected %s on %s: %s",
          r.reason().wireName(), Door.printable(r.topic(), 200), Door.printable(r.message(), 400));
    }
  }
}
