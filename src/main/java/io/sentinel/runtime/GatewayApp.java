package io.sentinel.runtime;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.sentinel.engine.Engine;
import io.sentinel.engine.StartMode;
import io.sentinel.rule.Problem;
import io.sentinel.rule.Site;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.InstantSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** The gateway process: load and validate the site, start the engine loop, run until stopped. */
public class GatewayApp implements QuarkusApplication {
  private static final Logger LOG = Logger.getLogger(GatewayApp.class);

  @Inject Vertx vertx;

  @ConfigProperty(name = "sentinel.site-dir", defaultValue = ".")
  String siteDir;

  @Override
  public int run(String... args) {
    Site.Loaded loaded = Site.load(Path.of(siteDir));
    for (Problem p : loaded.problems()) {
      if (p.isError()) {
        LOG.error(p.format());
      } else {
        LOG.warn(p.format());
      }
    }
    if (loaded.site().isEmpty()) {
      LOG.errorf(
          "SEN-001 site %s has errors; the gateway does not start on a rule set it cannot trust",
          siteDir);
      return 1;
    }
    Site site = loaded.site().get();
    InstantSource clock = InstantSource.system();
    Engine engine = new Engine(site.ruleSet(), clock.instant(), StartMode.COLD);
    EngineLoop loop = new EngineLoop(vertx, engine, clock);
    loop.start();
    LOG.infof(
        "SEN-002 site %s: %d points, %d rules, every rule in warmup; fail-safe interlocks asserted",
        site.name(), site.ruleSet().registry().points().size(), site.ruleSet().rules().size());
    Quarkus.waitForExit();
    loop.stop();
    return 0;
  }
}
