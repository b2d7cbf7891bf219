package io.sentinel.runtime;

import io.sentinel.config.SentinelConfig;
import io.sentinel.site.Site;
import io.sentinel.store.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/** A core with a standby (docs/standby.md): its contention for the site's core lock. */
final class GatewayStandby {
  private static final org.jboss.logging.Logger LOG =
      org.jboss.logging.Logger.getLogger(GatewayStandby.class);

  private GatewayStandby() {}

  /**
   * With a standby configured: the core starts only once it holds the site's core lock, and stops
   * (outputs safe) when it loses it (docs/standby.md). Needs the shared database the lock lives in.
   */
  static CoreRole contend(Gateway gateway) {
    SentinelConfig config = gateway.config;
    InstantSource clock = gateway.clock;
    Site checked = GatewaySite.load(config.siteDir()).site().orElseThrow();
    String name = config.site().filter(s -> !s.isBlank()).orElse(checked.name());
    io.sentinel.store.DbUrl db =
        StoreConfig.from(config)
            .url()
            .map(io.sentinel.store.DbUrl::parse)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "SEN-STB-007 sentinel.standby.enabled needs the site's shared database:"
                            + " set sentinel.db.url / SENTINEL_DB_URL (the embedded PostgreSQL is"
                            + " this machine's alone)"));
    io.sentinel.store.Migrations.migrate(db); // the epoch table, before the first contention
    Optional<SystemdNotify> watchdog =
        SystemdNotify.fromEnvironment(System.getenv(), ProcessHandle.current().pid());
    long[] lastBeat = {0};
    String holder = GatewayBroker.coreClientId(config, name);
    URI broker =
        URI.create(
            config
                .mqtt()
                .url()
                .filter(u -> !u.isBlank())
                .map(String::trim)
                .orElse(
                    "tcp://" + config.mqtt().embeddedHost() + ":" + config.mqtt().embeddedPort()));
    CoreStatus status =
        new CoreStatus(broker, holder, "sentinel/" + name + "/cores/" + holder, clock.instant());
    status.start();
    gateway.coreStatus = status;
    CoreRole r =
        new CoreRole(
            db,
            name,
            holder,
            new CoreRole.Settings(
                config.standby().pollEvery(),
                config.standby().checkEvery(),
                config.standby().takeoverGrace(),
                config.standby().lockTimeout()),
            new CoreRole.Core() {
              @Override
              public void activate(long tenure) {
                synchronized (gateway) {
                  gateway.epoch = tenure;
                  status.set("active", tenure);
                  clearSession(broker, holder);
                  gateway.start();
                }
              }

              @Override
              public void fenced(String why) {
                GatewayGpio g = gateway.gpio;
                if (g != null) {
                  g.engineLost(why); // at once, before the orderly stop of lost()
                }
                EngineLoop l = gateway.loop();
                if (l != null) {
                  l.stop(() -> {}); // no further pass: nothing it decides could leave anyway
                }
                // The retained role says so before the stop, which takes seconds, so that it
                // never shows two cores active.
                status.set("standby", 0);
              }

              @Override
              public void lost(String why) {
                fenced(why); // again: the core may have started since, or its start failed
                io.sentinel.store.Store st = gateway.store;
                if (st != null) {
                  // The log is the next holder's to write once its grace has passed: this one
                  // feeds what it can until half that time (the fence closes within its lease).
                  st.journal().stopFeeding(config.standby().takeoverGrace().dividedBy(2));
                }
                gateway.stopCore();
              }

              @Override
              public void standingBy() {
                // A standby is up and well while it contends: READY=1 once, then the watchdog.
                long now = System.nanoTime();
                watchdog.ifPresent(
                    n -> {
                      long every = n.beatEvery().orElse(Duration.ofSeconds(10)).toNanos();
                      if (lastBeat[0] == 0 || now - lastBeat[0] >= every) {
                        lastBeat[0] = now;
                        n.beat("standby for site " + name);
                      }
                    });
              }
            });
    r.start();
    return r;
  }

  /**
   * Ends the core's persistent MQTT session before a tenure: what the broker queued on it while
   * this gateway stood by (up to its queue limit) is the other core's history, already decided, and
   * draining it first would delay this core's first commands by seconds (docs/standby.md).
   */
  private static void clearSession(URI broker, String clientId) {
    var client = io.sentinel.mqtt.MqttConnection.builder(broker, clientId).buildAsync();
    try {
      client.connectWith().cleanSession(true).send().get(5, java.util.concurrent.TimeUnit.SECONDS);
      client.disconnect().get(2, java.util.concurrent.TimeUnit.SECONDS);
      LOG.infof(
          "SEN-187 MQTT session of %s cleared at the takeover: what the broker queued while it"
              + " stood by was the other core's",
          clientId);
    } catch (Exception e) {
      LOG.warnf(
          "SEN-188 MQTT session of %s not cleared at the takeover (%s): its backlog is drained"
              + " first",
          clientId, e.getMessage());
    }
  }
}
