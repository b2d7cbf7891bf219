package io.sentinel.runtime;

import io.sentinel.config.SentinelConfig;
import io.sentinel.derived.DerivedPoint;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.vertx.core.Vertx;
import java.util.Set;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/** The gateway's side of docs/devices.md: state topics, wired into the start of the gateway. */
final class GatewayDevices {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private GatewayDevices() {}

  /** The pass's outputs, with the state topics of the points that publish theirs in front. */
  static EngineLoop.Outputs stateTopics(
      SentinelConfig config,
      Site site,
      Topics topics,
      MqttConnection mqtt,
      Vertx vertx,
      EngineLoop.Outputs outputs) {
    StateTopics.Which which = StateTopics.Which.parse(config.state().points());
    Set<String> derived =
        site.basis().derived().ordered().stream().map(DerivedPoint::id).collect(Collectors.toSet());
    Set<String> points = StateTopics.points(which, site.basis().points(), derived);
    if (points.isEmpty()) {
      return outputs;
    }
    LOG.infof(
        "SEN-181 state of %d points (%s) retained on %s<point>, at most one per %d ms per point",
        points.size(),
        which.name().toLowerCase(java.util.Locale.ROOT),
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
}
