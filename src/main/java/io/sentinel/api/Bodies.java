package io.sentinel.api;

import io.sentinel.door.Door;
import io.sentinel.door.Refusal;
import io.sentinel.wire.JsonDoor;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The HTTP door: a request body is bounded (413 over its endpoint's limit, before it is decoded),
 * strict UTF-8 and, for JSON, read by {@link JsonDoor}; every refusal is a 400 (413) naming the
 * field, counted under its reason in {@code sentinel_ingest_rejected_total}. The limits are in
 * docs/hostile-input.md.
 */
@Singleton
class Bodies {
  /** {@code POST rules:validate} without the API token: small, it is open to anyone. */
  static final int VALIDATE_ANONYMOUS = 256 * 1024;

  /** {@code POST rules:validate} with the API token: what the {@code ruleset} topic takes. */
  static final int VALIDATE_AUTHENTICATED = 1 << 20;

  /** An override's JSON body: four short fields. */
  static final int OVERRIDE = 4 * 1024;

  @Inject GatewayAccess access;

  /** The body as text, or a 413 / 400 naming {@code body}. */
  String text(byte[] body, int limit) {
    if (body != null && body.length > limit) {
      throw refused(
          new Refusal(
              io.sentinel.door.Flaw.OVERSIZE,
              "body",
              body.length + " bytes, over this endpoint's limit of " + limit),
          413);
    }
    try {
      return body == null ? "" : Door.utf8(body, "body");
    } catch (Refusal r) {
      throw refused(r, 400);
    }
  }

  /** The body as a JSON object read at the door, or a 4xx naming the field at fault. */
  JsonObject json(byte[] body, int limit) {
    String text = text(body, limit);
    if (text.isBlank()) {
      throw ApiError.badRequest("body", "empty body: send a JSON object");
    }
    Object o;
    try {
      o = JsonDoor.read(text);
    } catch (Refusal r) {
      throw refused(r, 400);
    }
    if (!(o instanceof JsonObject j)) {
      throw ApiError.badRequest("body", "expected a JSON object");
    }
    return j;
  }

  /** A query parameter or other single-line text: no control character (400 naming it). */
  String line(String value, String field) {
    try {
      return Door.line(value, field);
    } catch (Refusal r) {
      throw refused(r, 400);
    }
  }

  ApiError refused(Refusal r, int status) {
    access.gateway().refusedAtDoor(r.flaw());
    String where = r.where().isEmpty() || r.where().startsWith("$") ? "body" : r.where();
    String field = r.where().startsWith("$.") ? r.where().substring(2) : where;
    return new ApiError(status, field, r.flaw().wireName() + ": " + r.describe());
  }
}
