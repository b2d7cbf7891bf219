package io.sentinel.api;

import io.sentinel.runtime.PassTap;
import io.smallrye.mutiny.Multi;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * {@code GET /api/v1/stream}: server-sent events of what each pass changed (the page's live
 * updates, docs/page.md). One JSON object per event, its {@code type} one of {@code hello}, {@code
 * point}, {@code claim}, {@code event}, {@code resync} (the feed dropped messages: read the state
 * again) and {@code ping} (every 15 s, so a dead connection is noticed).
 */
@Path("/api/v1/stream")
public class EventStream {
  static final Duration PING = Duration.ofSeconds(15);

  @Inject PassTap tap;

  @GET
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<String> stream() {
    Multi<String> pings =
        Multi.createFrom()
            .ticks()
            .startingAfter(PING)
            .every(PING)
            .map(n -> new JsonObject().put("type", "ping").encode());
    Multi<String> hello = Multi.createFrom().item(new JsonObject().put("type", "hello").encode());
    return Multi.createBy()
        .concatenating()
        .streams(hello, Multi.createBy().merging().streams(tap.messages(), pings));
  }
}
