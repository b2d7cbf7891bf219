package io.sentinel.runtime;

import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.PassResult;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.point.Registry;
import io.sentinel.point.Transition;
import io.sentinel.wire.Payloads;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * What the gateway senses, published (docs/devices.md): retained {@code
 * sentinel/<site>/state/<point>} as {@code {"value", "quality", "ts"}} whenever a pass changes a
 * published point (its deadband, which is the engine's transition) or its quality (the watchdog's
 * stale and unavailable among them). At most one message per point per {@code minInterval}: a
 * change inside the interval waits, and the latest state is sent when it ends, so the topic always
 * ends on the point's current state. Runs on the engine's context, as a wrapper of the pass's other
 * outputs; the gateway never subscribes to these topics, and a {@code source.mqtt} under its own
 * root is refused at start, so a state is never read back as a sample.
 */
final class StateTopics implements Outputs {
  /** Which points publish: {@code own} (GPIO inputs, derived points), {@code all}, {@code none}. */
  enum Which {
    OWN,
    ALL,
    NONE;

    static Which parse(String text) {
      for (Which w : values()) {
        if (w.name().equalsIgnoreCase(text.trim())) {
          return w;
        }
      }
      throw new IllegalStateException(
          "SEN-180 sentinel.state.points is '" + text + "': own, all or none");
    }
  }

  private final Outputs next;
  private final MqttConnection mqtt;
  private final Topics topics;
  private final Set<String> published;
  private final long intervalNanos;
  private final BiConsumer<Duration, Runnable> later;
  private final Map<String, Slot> slots = new HashMap<>();

  /** A point's last message and what waits for the end of its interval. */
  private static final class Slot {
    long sentAt;
    PointState waiting;
  }

  /**
   * @param later runs a task after a delay on the engine's context
   */
  StateTopics(
      Outputs next,
      MqttConnection mqtt,
      Topics topics,
      Set<String> published,
      Duration minInterval,
      BiConsumer<Duration, Runnable> later) {
    this.next = next;
    this.mqtt = mqtt;
    this.topics = topics;
    this.published = Set.copyOf(published);
    this.intervalNanos = minInterval.toNanos();
    this.later = later;
  }

  /** The points that publish their state, for {@code which} over a registry and derived ids. */
  static Set<String> points(Which which, Registry registry, Set<String> derived) {
    Set<String> ids = new LinkedHashSet<>();
    if (which == Which.NONE) {
      return ids;
    }
    for (PointSpec spec : registry.points().values()) {
      if (which == Which.ALL || spec.source().orElse(null) instanceof PointSource.Gpio) {
        ids.add(spec.id());
      }
    }
    ids.addAll(derived);
    return ids;
  }

  @Override
  public void passed(Instant now, PassResult result, PlaneOutput plane, int samples) {
    next.passed(now, result, plane, samples);
    for (Transition t : result.transitions()) {
      if (published.contains(t.pointId())) {
        offer(t.pointId(), t.current());
      }
    }
  }

  @Override
  public void planeReported(PlaneOutput plane) {
    next.planeReported(plane);
  }

  private void offer(String pointId, PointState state) {
    Slot slot = slots.computeIfAbsent(pointId, k -> new Slot());
    long now = System.nanoTime();
    boolean timerSet = slot.waiting != null;
    if (!timerSet && (slot.sentAt == 0 || now - slot.sentAt >= intervalNanos)) {
      send(pointId, slot, state, now);
      return;
    }
    slot.waiting = state;
    if (!timerSet) {
      long wait = Math.max(1, intervalNanos - (now - slot.sentAt));
      later.accept(
          Duration.ofNanos(wait),
          () -> {
            PointState latest = slot.waiting;
            slot.waiting = null;
            if (latest != null) {
              send(pointId, slot, latest, System.nanoTime());
            }
          });
    }
  }

  private void send(String pointId, Slot slot, PointState state, long now) {
    slot.sentAt = now;
    mqtt.publishRetained(topics.state(pointId), Payloads.state(state));
  }
}
