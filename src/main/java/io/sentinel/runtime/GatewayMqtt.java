package io.sentinel.runtime;

import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.LiveFacts;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.SharedEventLoop;
import io.sentinel.wire.Payloads;
import io.vertx.core.impl.ContextInternal;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * {@link Gateway}'s MQTT session: what it subscribes to (points, third-party topics, the ruleset
 * topic, Home Assistant's commands), where messages go ({@link MqttIngest}), its retained status
 * and backlog marker, and what a connect or a loss tells the metrics, the command plane and the
 * loop.
 */
final class GatewayMqtt {
  private GatewayMqtt() {}

  static MqttConnection connection(Gateway g, IngestDecoder decoder) {
    Set<String> filters = new LinkedHashSet<>();
    filters.add(g.topics.pointsFilter());
    filters.addAll(decoder.thirdPartyTopics());
    filters.add(g.topics.ruleset());
    g.ingest =
        new MqttIngest(
            g.topics,
            decoder,
            new LiveFacts(g.site.ruleSet().registry(), g.config.ingest().maxFutureSkew()),
            () -> g.loop,
            () -> g.rulesetTopic,
            () -> g.mqtt,
            g.metrics,
            g.clock);
    MqttConnection.Inbound inbound = g.ingest;
    if (g.homeAssistant != null) {
      filters.add(g.homeAssistant.commandFilter());
      inbound = g.homeAssistant.routing(inbound);
    }
    return new MqttConnection(
        g.broker.settings(
            g.config.mqtt(),
            GatewayBroker.coreClientId(g.config, g.topics.site()),
            SharedEventLoop.of(((ContextInternal) g.engineContext).nettyEventLoop())),
        g.topics.status(),
        () -> Payloads.status("online", Optional.of(g.activeRevision()), g.started),
        Payloads.status("offline", Optional.empty(), g.started),
        filters,
        inbound,
        new MqttConnection.Listener() {
          @Override
          public void connected() {
            g.ingest.connected();
            g.metrics.mqttConnected(g.sessions.getAndIncrement() == 0);
            g.readinessChanged();
          }

          @Override
          public void disconnected(String cause) {
            g.ingest.connectionLost();
            g.readinessChanged();
          }

          @Override
          public void draining(boolean draining) {
            if (draining) {
              g.ingest.sessionResumed();
            }
            EngineLoop l = g.loop;
            if (l != null) {
              l.draining(draining);
            }
          }
        },
        Optional.of(
            g.topics.root()
                + "ingest/marker/"
                + GatewayBroker.coreClientId(g.config, g.topics.site()).replaceAll("[+#/]", "_")));
  }
}
