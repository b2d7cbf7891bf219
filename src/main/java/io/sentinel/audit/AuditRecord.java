package io.sentinel.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An entry in its place in the chain: {@code seq} counts from 1, {@code previousHash} is the hash
 * of the record before it (64 zeros for the first), {@code hash} is SHA-256 over the canonical JSON
 * of every other field.
 */
public record AuditRecord(long seq, AuditEntry entry, String previousHash, String hash) {
  public static final String GENESIS = "0".repeat(64);

  /** Chains an entry after the record whose hash is {@code previousHash}. */
  public static AuditRecord seal(long seq, AuditEntry entry, String previousHash) {
    String body = CanonicalJson.textOf(fields(seq, entry, previousHash));
    return new AuditRecord(seq, entry, previousHash, CanonicalJson.sha256(body));
  }

  /** The record as one canonical NDJSON line, hash included. */
  public String line() {
    Map<String, Object> m = fields(seq, entry, previousHash);
    m.put("hash", hash);
    return CanonicalJson.textOf(m);
  }

  public JsonNode json() {
    ObjectNode o = body(seq, entry, previousHash);
    o.put("hash", hash);
    return o;
  }

  static ObjectNode body(long seq, AuditEntry e, String previousHash) {
    return (ObjectNode) CanonicalJson.tree(fields(seq, e, previousHash));
  }

  private static Map<String, Object> fields(long seq, AuditEntry e, String previousHash) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq", seq);
    m.put("event_id", e.eventId());
    m.put("kind", e.kind());
    m.put("rule_id", e.ruleId());
    m.put("revision", e.revision());
    m.put("matched_inputs", e.matchedInputs());
    m.put("resolved_outputs", e.resolvedOutputs());
    m.put("band", e.band());
    m.put("priority", e.priority());
    m.put("deciding_key", e.decidingKey());
    m.put("contenders", e.contenders());
    m.put("device_id", e.deviceId());
    m.put("zone", e.zone());
    m.put("cycle", e.cycle());
    m.put("ts", e.ts().toString());
    m.put("reason", e.reason());
    m.put("detail", e.detail());
    m.put("previous_hash", previousHash);
    return m;
  }
}
