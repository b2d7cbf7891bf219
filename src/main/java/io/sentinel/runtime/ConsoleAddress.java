package io.sentinel.runtime;

import io.quarkus.vertx.http.HttpServer;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * One start-up line with where the dashboard and the API answer, once the HTTP server listens (its
 * port is known only then: 0 asks for any free one).
 */
@ApplicationScoped
public class ConsoleAddress {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  @Inject HttpServer server;

  /** Fired once the server listens; the event's options carry the configured port (-1: any). */
  void onHttpStart(@ObservesAsync HttpServerStart event) {
    LOG.info(line(event.options().getHost(), server.getPort()));
  }

  /**
   * {@code SEN-017 dashboard http://localhost:8080/, API http://localhost:8080/api/v1/}; a server
   * on every interface is shown as localhost, and said to listen on all of them.
   */
  static String line(String host, int port) {
    boolean everywhere = host == null || host.equals("0.0.0.0") || host.equals("::");
    String shown = everywhere ? "localhost" : host.contains(":") ? "[" + host + "]" : host;
    String base = "http://" + shown + ":" + port;
    return "SEN-017 dashboard "
        + base
        + "/, API "
        + base
        + "/api/v1/, health "
        + base
        + "/q/health"
        + (everywhere ? " (listening on every interface)" : "");
  }
}
