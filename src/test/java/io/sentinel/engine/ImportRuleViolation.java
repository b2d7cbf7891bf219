package io.sentinel.engine;

import io.sentinel.store.Store;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * Breaks every import rule of the core on purpose (ImportRulesTest shows each rule catches it): an
 * engine class that reaches into the store, builds a Vert.x type and reads the wall clock. Test
 * sources only; never called.
 */
public final class ImportRuleViolation {
  private ImportRuleViolation() {}

  static Object all(Store store) {
    return new JsonObject().put("at", Instant.now().toString()).put("store", store.toString());
  }
}
