package io.sentinel.mqtt;

import io.sentinel.point.Direction;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import java.util.Optional;
import java.util.Set;

/**
 * Where a point's samples may come from (docs/runtime.md, "Where inputs may come from"): an output
 * is commanded, never reported; a derived point is computed by the gateway; a point wired to a GPIO
 * pin is read from the pin while this process reads pins; a point mapped from a third-party topic
 * takes samples from that topic only. What is left may be reported on the gateway's own {@code
 * points/<id>} topic.
 *
 * @param derived the ids of the site's derived points
 * @param pinsRead whether this process reads GPIO pins ({@code sentinel.gpio.platform} not {@code
 *     off}); without, the {@code points/<id>} topic stands in for a pin, as commands for a GPIO
 *     output go to MQTT then
 */
public record SourcePolicy(Set<String> derived, boolean pinsRead) {
  /** No derived points, no pins read: only outputs and mapped points are refused. */
  public static final SourcePolicy OPEN = new SourcePolicy(Set.of(), false);

  public SourcePolicy {
    derived = Set.copyOf(derived);
  }

  /** Why nothing may be reported for {@code pointId} on the gateway's own topic, if so. */
  Optional<Refusal> ownTopic(String pointId, Optional<PointSpec> spec) {
    if (derived.contains(pointId)) {
      return refusal(
          RejectReason.DERIVED_POINT,
          pointId + " is a derived point: the gateway computes it from its inputs");
    }
    if (spec.isEmpty()) {
      return Optional.empty();
    }
    PointSpec p = spec.get();
    if (p.direction() == Direction.OUT) {
      return refusal(
          RejectReason.NOT_AN_INPUT,
          pointId + " is an output; a point that reports feedback is direction inout");
    }
    PointSource source = p.source().orElse(null);
    if (source instanceof PointSource.Gpio g && pinsRead) {
      return refusal(
          RejectReason.GPIO_SOURCED, pointId + " is read from GPIO pin " + g.pin() + " only");
    }
    if (source instanceof PointSource.Mqtt m) {
      return refusal(
          RejectReason.WRONG_TOPIC, pointId + " takes samples from " + m.topic() + " only");
    }
    return Optional.empty();
  }

  private static Optional<Refusal> refusal(RejectReason reason, String message) {
    return Optional.of(new Refusal(reason, message));
  }

  record Refusal(RejectReason reason, String message) {}
}
