package io.sentinel.api;

import io.sentinel.audit.AuditVerifier;
import io.sentinel.door.Door;
import io.sentinel.door.Refusal;
import io.sentinel.store.History;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** The audit log over HTTP: pages of NDJSON in chain order, and the chain verified. */
@Singleton
class AuditPages {
  private static final org.jboss.logging.Logger LOG =
      org.jboss.logging.Logger.getLogger("io.sentinel.api");

  static final String NDJSON = "application/x-ndjson";
  static final int DEFAULT_LIMIT = 1000;
  static final int MAX_LIMIT = 10_000;

  @Inject GatewayAccess access;

  Response audit(String from, String to, String limit, String after) {
    Optional<Instant> fromAt = instant("from", from);
    Optional<Instant> toAt = instant("to", to);
    if (fromAt.isPresent() && toAt.isPresent() && !toAt.get().isAfter(fromAt.get())) {
      throw ApiError.badRequest("to", "to (" + to + ") must lie after from (" + from + ")");
    }
    int max = (int) integer("limit", limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
    long afterSeq = integer("after", after, 0, 0, Long.MAX_VALUE);
    StringBuilder out = new StringBuilder();
    long[] last = {afterSeq};
    long n;
    try {
      n =
          access
              .gateway()
              .history()
              .audit(
                  new History.AuditPage(fromAt, toAt, afterSeq, max),
                  line -> {
                    out.append(line.text()).append('\n');
                    last[0] = line.seq();
                  });
    } catch (Exception e) {
      // The database's own text stays in the log: a response names no internal detail.
      LOG.warnf("SEN-102 the audit log could not be read: %s", Door.printable(e.getMessage(), 300));
      throw new ApiError(
          503, "", "the audit log cannot be read now (the database is away or refused the query)");
    }
    Response.ResponseBuilder r =
        Response.ok(out.toString(), NDJSON).header("Sentinel-Audit-Count", n);
    if (n == max) {
      StringBuilder next = new StringBuilder("/api/v1/audit?");
      fromAt.ifPresent(t -> next.append("from=").append(t).append('&'));
      toAt.ifPresent(t -> next.append("to=").append(t).append('&'));
      next.append("limit=").append(max).append("&after=").append(last[0]);
      r.header("Link", "<" + next + ">; rel=\"next\"");
    }
    return r.build();
  }

  String verify() {
    AuditVerifier.Verdict v;
    try {
      v = access.gateway().history().verifyAudit();
    } catch (Exception e) {
      LOG.warnf(
          "SEN-106 the audit chain could not be verified: %s", Door.printable(e.getMessage(), 300));
      throw new ApiError(
          503, "", "the audit log cannot be read now (the database is away or refused the query)");
    }
    return new JsonObject()
        .put("intact", v.intact())
        .put("checked", v.checked())
        .put("head", v.intact() ? v.headHash() : null)
        .put(
            "broken",
            v.broken()
                .map(
                    b ->
                        new JsonObject()
                            .put("where", b.where())
                            .put("seq", b.seq())
                            .put("event_id", b.eventId())
                            .put("why", b.why()))
                .orElse(null))
        .put("message", v.describe())
        .encode();
  }

  private static Optional<Instant> instant(String field, String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    Instant t;
    try {
      t = OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw ApiError.badRequest(
          field,
          field
              + " "
              + Door.quote(text)
              + " is not an ISO-8601 instant (e.g. 2026-11-30T10:00:00Z)");
    }
    try {
      // PostgreSQL holds timestamps to year 294276: +294277-… is refused here, not by it (a 503).
      return Optional.of(Door.queryTime(t, field));
    } catch (Refusal r) {
      throw ApiError.badRequest(field, r.flaw().wireName() + ": " + r.describe());
    }
  }

  private static long integer(String field, String text, long fallback, long min, long max) {
    if (text == null || text.isBlank()) {
      return fallback;
    }
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw ApiError.badRequest(field, field + " " + Door.quote(text) + " is not a whole number");
    }
    if (v < min || v > max) {
      throw ApiError.badRequest(field, field + " must lie in [" + min + ", " + max + "]");
    }
    return v;
  }
}
