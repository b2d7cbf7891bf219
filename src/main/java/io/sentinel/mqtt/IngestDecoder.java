package io.sentinel.mqtt;

import io.sentinel.door.Door;
import io.sentinel.door.Refusal;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Quality;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.wire.JsonDoor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns an MQTT message into samples, or into rejections with a reason, never both for one point.
 * It maps and checks; it decides nothing (a value out of range is taken: the point table keeps it
 * with quality bad). JSON is read at the door ({@link JsonDoor}: strict UTF-8, bounded size and
 * depth, no duplicate key, no control character, finite numbers); a number is checked finite again
 * after conversion to its point's unit, and a device {@code ts} inside the door's window.
 *
 * <p>Two kinds of topic: the gateway's own {@code sentinel/<site>/points/<id>} (a JSON object with
 * {@code value}, and optionally {@code quality}, {@code ts}, {@code unit}; or a bare scalar), and
 * third-party topics named by a point's {@code source.mqtt} (the value at {@code json_path}).
 */
public final class IngestDecoder {
  /** Qualities a device may report; unknown and restored are the gateway's own. */
  private static final Set<Quality> DEVICE_QUALITIES =
      Set.of(Quality.LIVE, Quality.STALE, Quality.UNAVAILABLE, Quality.BAD);

  private static final Set<String> FIELDS = Set.of("value", "quality", "ts", "unit");

  /**
   * Each point by id with its position in the registry ({@link Registry#inOrder}), which the
   * decoder hands the engine with the point's samples ({@link Sample#position}): one lookup finds
   * both.
   */
  private final Map<String, Located> points = new HashMap<>();

  private record Located(PointSpec spec, int position) {}

  private final SourcePolicy sources;
  private final String pointsPrefix;
  private final int maxPayloadBytes;
  private final Map<String, List<Mapped>> thirdParty = new LinkedHashMap<>();

  /** A point fed from a third-party topic; {@code time}: where its device's timestamp is. */
  private record Mapped(PointSpec spec, int position, JsonPath path, Optional<DeviceTime> time) {}

  private record DeviceTime(JsonPath path, PointSource.TimeFormat format) {}

  /** A payload, or one point's part of it, that was not taken. */
  public record Rejection(
      RejectReason reason, String topic, Optional<String> pointId, String message) {}

  /** What one message became. */
  /**
   * What one message gave: its samples (stamped at receipt), its rejections, and the device's own
   * {@code ts} when it sent one (the log keeps it beside the sample; the engine does not use it).
   */
  public record Decoded(
      List<Sample> samples, List<Rejection> rejections, Optional<Instant> deviceTime) {
    public Decoded(List<Sample> samples, List<Rejection> rejections) {
      this(samples, rejections, Optional.empty());
    }
  }

  /** A registry entry whose {@code source.mqtt} cannot be used, found when the gateway starts. */
  public record SourceProblem(PointSpec spec, String message) {}

  private IngestDecoder(
      Registry registry, SourcePolicy sources, Topics topics, int maxPayloadBytes) {
    List<PointSpec> inOrder = registry.inOrder();
    for (int i = 0; i < inOrder.size(); i++) {
      points.put(inOrder.get(i).id(), new Located(inOrder.get(i), i));
    }
    this.sources = sources;
    this.pointsPrefix = topics.pointPrefix();
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * Builds the decoder for a registry; every unusable {@code source.mqtt} (a bad json_path, a
   * wildcard topic) goes to {@code problems} and is left out.
   */
  public static IngestDecoder of(
      Registry registry, Topics topics, int maxPayloadBytes, List<SourceProblem> problems) {
    return of(registry, SourcePolicy.OPEN, topics, maxPayloadBytes, problems);
  }

  /** {@link #of(Registry, Topics, int, List)}, refusing what {@code sources} says is not theirs. */
  public static IngestDecoder of(
      Registry registry,
      SourcePolicy sources,
      Topics topics,
      int maxPayloadBytes,
      List<SourceProblem> problems) {
    IngestDecoder d = new IngestDecoder(registry, sources, topics, maxPayloadBytes);
    for (PointSpec spec : registry.points().values()) {
      if (!(spec.source().orElse(null) instanceof PointSource.Mqtt m)) {
        continue;
      }
      JsonPath.Parsed parsed = JsonPath.parse(m.jsonPath());
      if (m.topic().contains("+") || m.topic().contains("#") || m.topic().isEmpty()) {
        problems.add(
            new SourceProblem(spec, "source.mqtt topic must be one exact topic: " + m.topic()));
      } else if (m.topic().startsWith(topics.root())) {
        problems.add(
            new SourceProblem(
                spec,
                "source.mqtt topic "
                    + m.topic()
                    + " is the gateway's own: what it publishes (state/, claims/, commands/) is"
                    + " never read back as a sample"));
      } else if (parsed.path().isEmpty()) {
        problems.add(
            new SourceProblem(
                spec, "source.mqtt json_path '" + m.jsonPath() + "': " + parsed.problem()));
      } else {
        Optional<DeviceTime> time = Optional.empty();
        if (m.timestamp().isPresent()) {
          JsonPath.Parsed tp = JsonPath.parse(m.timestamp().get().jsonPath());
          if (tp.path().isEmpty()) {
            problems.add(
                new SourceProblem(
                    spec,
                    "source.mqtt timestamp json_path '"
                        + m.timestamp().get().jsonPath()
                        + "': "
                        + tp.problem()));
            continue;
          }
          time = Optional.of(new DeviceTime(tp.path().get(), m.timestamp().get().format()));
        }
        d.thirdParty
            .computeIfAbsent(m.topic(), k -> new ArrayList<>())
            .add(new Mapped(spec, d.points.get(spec.id()).position(), parsed.path().get(), time));
      }
    }
    return d;
  }

  /** The third-party topics to subscribe to. */
  public Set<String> thirdPartyTopics() {
    return thirdParty.keySet();
  }

  public Decoded decode(String topic, byte[] payload, Instant receivedAt) {
    List<Mapped> mapped = thirdParty.get(topic);
    boolean own = topic.startsWith(pointsPrefix);
    if (mapped == null && !own) {
      return rejected(RejectReason.UNKNOWN_POINT, topic, null, "no point is fed by this topic");
    }
    if (payload.length > maxPayloadBytes) {
      return rejected(
          RejectReason.OVERSIZE,
          topic,
          null,
          payload.length + " bytes, over the limit of " + maxPayloadBytes);
    }
    Object document;
    try {
      document = JsonDoor.read(payload, maxPayloadBytes, "payload");
    } catch (Refusal r) {
      if (r.flaw() != io.sentinel.door.Flaw.UNREADABLE_JSON
          || mapped == null
          || mapped.stream().noneMatch(m -> m.path().whole())) {
        return rejected(RejectReason.of(r.flaw()), topic, null, r.describe());
      }
      // A device that publishes a bare word (Tasmota's stat/<dev>/POWER: ON): json_path $ takes it,
      // through the same door (strict UTF-8 already checked, no control character).
      try {
        document = new DeviceText(Door.line(Door.utf8(payload, "payload").trim(), "payload"));
      } catch (Refusal bad) {
        return rejected(RejectReason.of(bad.flaw()), topic, null, bad.describe());
      }
    }
    if (mapped == null) {
      return decodeOwn(topic, topic.substring(pointsPrefix.length()), document, receivedAt);
    }
    List<Sample> samples = new ArrayList<>();
    List<Rejection> rejections = new ArrayList<>();
    for (Mapped m : mapped) {
      if (document instanceof DeviceText && !m.path().whole()) {
        rejections.add(
            new Rejection(
                RejectReason.UNREADABLE_JSON,
                topic,
                Optional.of(m.spec().id()),
                "not JSON, so there is nothing at " + m.path()));
        continue;
      }
      Optional<Object> picked =
          document instanceof DeviceText t ? Optional.of(t.text()) : m.path().select(document);
      if (picked.isEmpty()) {
        rejections.add(
            new Rejection(
                RejectReason.PATH_NOT_FOUND,
                topic,
                Optional.of(m.spec().id()),
                "no value at " + m.path()));
        continue;
      }
      IngestValues.Typed typed =
          m.spec().valueMap().isPresent()
              ? IngestValues.mapped(m.spec(), m.spec().valueMap().get(), picked.get())
              : IngestValues.typed(m.spec(), picked.get(), MeasureUnit.NONE, false);
      if (typed.rejection() != null) {
        rejections.add(withTopic(typed.rejection(), topic, m.spec()));
      } else {
        samples.add(
            new Sample(m.spec().id(), typed.value(), Quality.LIVE, receivedAt, m.position()));
      }
    }
    return thirdPartyTime(topic, mapped, document, samples, rejections);
  }

  /**
   * The device's timestamp where the topic's mapping names one (docs/live.md): the first mapped
   * point's that has one (points on one topic share a payload, so they name the same field). A
   * mapping that names one the payload lacks or garbles costs the message its samples
   * (bad-timestamp).
   */
  private static Decoded thirdPartyTime(
      String topic,
      List<Mapped> mapped,
      Object document,
      List<Sample> samples,
      List<Rejection> rejections) {
    Optional<Mapped> timed = mapped.stream().filter(m -> m.time().isPresent()).findFirst();
    if (timed.isEmpty() || samples.isEmpty()) {
      return new Decoded(samples, rejections);
    }
    DeviceTime t = timed.get().time().get();
    Optional<Object> raw = t.path().select(document);
    DeviceClock.Read read =
        raw.isEmpty()
            ? new DeviceClock.Read(null, "no timestamp at " + t.path())
            : DeviceClock.read(raw.get(), t.format());
    if (read.instant() != null) {
      return new Decoded(samples, rejections, Optional.of(read.instant()));
    }
    List<Rejection> all = new ArrayList<>(rejections);
    for (Sample s : samples) {
      all.add(
          new Rejection(
              RejectReason.BAD_TIMESTAMP,
              topic,
              Optional.of(s.pointId()),
              "timestamp at " + t.path() + " (" + t.format().wireName() + "): " + read.problem()));
    }
    return new Decoded(List.of(), all);
  }

  private Decoded decodeOwn(String topic, String pointId, Object document, Instant at) {
    Located located = points.get(pointId);
    Optional<PointSpec> found = Optional.ofNullable(located).map(Located::spec);
    Optional<SourcePolicy.Refusal> refused = sources.ownTopic(pointId, found);
    if (refused.isPresent()) {
      return new Decoded(
          List.of(),
          List.of(
              new Rejection(
                  refused.get().reason(), topic, Optional.of(pointId), refused.get().message())));
    }
    if (found.isEmpty()) {
      return rejected(RejectReason.UNKNOWN_POINT, topic, null, "no point " + pointId);
    }
    PointSpec spec = located.spec();
    int position = located.position();
    if (document instanceof JsonArray) {
      return rejected(RejectReason.WRONG_TYPE, topic, spec, "an array is not a value");
    }
    if (!(document instanceof JsonObject o)) {
      return accept(
          spec,
          position,
          IngestValues.typed(spec, document, MeasureUnit.NONE, false),
          Quality.LIVE,
          topic,
          at,
          Optional.empty());
    }
    for (String key : o.fieldNames()) {
      if (!FIELDS.contains(key)) {
        return rejected(
            RejectReason.UNKNOWN_FIELD,
            topic,
            spec,
            "unknown field '" + IngestValues.clip(key) + "' (known: value, quality, ts, unit)");
      }
    }
    Quality quality = Quality.LIVE;
    Object q = o.getValue("quality");
    if (q != null) {
      Optional<Quality> parsed = q instanceof String s ? Quality.parse(s) : Optional.empty();
      if (parsed.isEmpty() || !DEVICE_QUALITIES.contains(parsed.get())) {
        return rejected(
            RejectReason.BAD_QUALITY,
            topic,
            spec,
            "quality must be live, stale, unavailable or bad, found "
                + IngestValues.clip(String.valueOf(q)));
      }
      quality = parsed.get();
    }
    Object ts = o.getValue("ts");
    Optional<Instant> deviceTime = Optional.empty();
    if (ts != null) {
      try {
        deviceTime = Optional.of(Door.deviceTime(ts, at, "ts"));
      } catch (Refusal r) {
        return rejected(RejectReason.of(r.flaw()), topic, spec, r.describe());
      }
    }
    MeasureUnit unit = spec.unit();
    Object u = o.getValue("unit");
    if (u != null) {
      Optional<MeasureUnit> parsed =
          u instanceof String s ? MeasureUnit.parse(s) : Optional.empty();
      if (parsed.isEmpty()) {
        return rejected(
            RejectReason.UNKNOWN_UNIT,
            topic,
            spec,
            "unknown unit " + IngestValues.clip(String.valueOf(u)));
      }
      unit = parsed.get();
    }
    Object value = o.getValue("value");
    if (value == null) {
      if (quality == Quality.LIVE) {
        return rejected(
            RejectReason.MISSING_VALUE,
            topic,
            spec,
            "a live report needs a value (a report of quality alone names stale, unavailable or"
                + " bad)");
      }
      return accept(
          spec,
          position,
          new IngestValues.Typed(Value.ABSENT, null),
          quality,
          topic,
          at,
          deviceTime);
    }
    return accept(
        spec,
        position,
        IngestValues.typed(spec, value, unit, u != null),
        quality,
        topic,
        at,
        deviceTime);
  }

  private Decoded accept(
      PointSpec spec,
      int position,
      IngestValues.Typed typed,
      Quality quality,
      String topic,
      Instant at,
      Optional<Instant> deviceTime) {
    if (typed.rejection() != null) {
      return new Decoded(List.of(), List.of(withTopic(typed.rejection(), topic, spec)));
    }
    return new Decoded(
        List.of(new Sample(spec.id(), typed.value(), quality, at, position)),
        List.of(),
        deviceTime);
  }

  /** A payload that is not JSON, taken as text by a json_path $ mapping. */
  private record DeviceText(String text) {}

  private static Rejection withTopic(Rejection r, String topic, PointSpec spec) {
    return new Rejection(r.reason(), topic, Optional.of(spec.id()), r.message());
  }

  private static Decoded rejected(
      RejectReason reason, String topic, PointSpec spec, String message) {
    return new Decoded(
        List.of(),
        List.of(
            new Rejection(reason, topic, Optional.ofNullable(spec).map(PointSpec::id), message)));
  }
}
