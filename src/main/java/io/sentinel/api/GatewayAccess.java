package io.sentinel.api;

import io.sentinel.engine.Engine;
import io.sentinel.rule.Rule;
import io.sentinel.runtime.EngineLoop;
import io.sentinel.runtime.Gateway;
import io.sentinel.site.Site;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** What every part of the API needs of the gateway: its engine loop and site, or a 503. */
@Singleton
class GatewayAccess {
  @Inject Gateway gateway;

  Gateway gateway() {
    return gateway;
  }

  EngineLoop loop() {
    EngineLoop loop = gateway.loop();
    if (loop == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return loop;
  }

  Site site() {
    Site site = gateway.site();
    if (site == null) {
      throw new ApiError(503, "", "the gateway is not running");
    }
    return site;
  }

  /**
   * The rule as the engine runs it: the active revision's, which a push may have replaced since the
   * site's files were read. On the engine's context.
   */
  static Rule ruleIn(Engine e, String id) {
    return e.ruleSet()
        .rule(id)
        .orElseThrow(() -> ApiError.notFound("id", "no rule " + id + " in the active rule set"));
  }

  static int pointIndex(Engine e, String id) {
    int i = e.points().indexOf(id);
    if (i < 0) {
      throw ApiError.notFound("id", "no point " + id + " in the registry");
    }
    return i;
  }
}
