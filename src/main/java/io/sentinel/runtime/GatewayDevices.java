package io.sentinel.runtime;

import io.sentinel.config.SentinelConfig;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.Direction;
import io.sentinel.point.PointSpec;
import io.sentinel.rule.Rule;
import io.sentinel.site.Site;
import io.vertx.core.Vertx;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The gateway's side of docs/devices.md, wired into its start: the state topics and Home Assistant.
 */
final class GatewayDevices {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private GatewayDevices() {}

  /** The points that publish their state ({@code sentinel.state.points}). */
  static Set<String> statePoints(SentinelConfig config, Site site) {
    StateTopics.Which which = StateTopics.Which.parse(config.state().points());
    Set<String> derived =
        site.basis().derived().ordered().stream().map(DerivedPoint::id).collect(Collectors.toSet());
    return StateTopics.points(which, site.basis().points(), derived);
  }

  /** The pass's outputs, with the state topics of the points that publish theirs in front. */
  static Outputs stateTopics(
      SentinelConfig config,
      Site site,
      Topics topics,
      MqttConnection mqtt,
      Vertx vertx,
      Outputs outputs) {
    Set<String> points = statePoints(config, site);
    if (points.isEmpty()) {
      return outputs;
    }
    LOG.infof(
        "SEN-181 state of %d points (%s) retained on %s<point>, at most one per %d ms per point",
        points.size(),
        config.state().points().trim().toLowerCase(java.util.Locale.ROOT),
        topics.state(""),
        config.state().minInterval().toMillis());
    return new StateTopics(
        outputs,
        mqtt,
        topics,
        points,
        config.state().minInterval(),
        (delay, task) -> vertx.setTimer(Math.max(1, delay.toMillis()), id -> task.run()));
  }

  /** Home Assistant, when {@code sentinel.homeassistant.discovery} is on. */
  static Optional<HaBridge> homeAssistant(
      SentinelConfig config,
      Site site,
      Topics topics,
      Supplier<EngineLoop> loop,
      Supplier<MqttConnection> mqtt,
      InstantSource clock) {
    if (!config.homeassistant().discovery()) {
      return Optional.empty();
    }
    List<PointSpec> points = new ArrayList<>(site.basis().points().points().values());
    site.basis().derived().ordered().forEach(d -> points.add(d.spec()));
    Map<String, PointSpec> outputs = new LinkedHashMap<>();
    List<String> selfPoints = new ArrayList<>();
    for (PointSpec p : points) {
      if (p.direction().claimable()) {
        outputs.put(p.id(), p);
      }
      if (p.direction() == Direction.INOUT) {
        selfPoints.add(io.sentinel.command.CommandPlane.notConvergedPoint(p.id()));
      }
    }
    for (Rule r : site.ruleSet().rules()) {
      selfPoints.add("rule." + r.id() + ".suspended");
    }
    HaDiscovery discovery = new HaDiscovery(config.homeassistant().prefix(), topics);
    return Optional.of(
        new HaBridge(
            discovery,
            discovery.configs(points, statePoints(config, site), selfPoints),
            outputs,
            config.homeassistant().overrideFor(),
            topics,
            loop,
            mqtt,
            clock));
  }
}
