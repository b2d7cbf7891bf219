package io.sentinel.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Optional;

/**
 * Walks a chain of records in order and names the first broken link. An edited record no longer
 * hashes to its {@code hash}; a removed or moved record leaves a {@code previous_hash} that is not
 * the hash of the record before it, and a {@code seq} out of step.
 */
public final class AuditVerifier {
  private AuditVerifier() {}

  /** One record as read: where it came from (a file line, a table row) and its JSON. */
  public record Item(String where, String text) {}

  /** The verdict: how many records were checked and, if any, the first broken link. */
  public record Verdict(long checked, Optional<Break> broken, String headHash) {
    public boolean intact() {
      return broken.isEmpty();
    }

    public String describe() {
      return broken
          .map(
              b ->
                  "BROKEN at "
                      + b.where()
                      + " (seq "
                      + b.seq()
                      + ", "
                      + b.eventId()
                      + "): "
                      + b.why())
          .orElse("intact: " + checked + " records, head " + headHash);
    }
  }

  public record Break(String where, long seq, String eventId, String why) {}

  public static Verdict verify(Iterator<Item> items) {
    Walk walk = new Walk();
    while (items.hasNext() && walk.accept(items.next())) {
      // each record checked as it comes
    }
    return walk.verdict();
  }

  /**
   * The check, one record at a time, for a reader that pushes records (a database cursor): {@link
   * #accept} until it answers false (a broken link), then {@link #verdict}.
   */
  public static final class Walk {
    private String previousHash = AuditRecord.GENESIS;
    private long previousSeq = 0;
    private long checked = 0;
    private Verdict broken;
    private long watched = -1;
    private String watchedHash;

    /** Keeps the hash of the record {@code seq} as it passes (an anchor's, to compare). */
    public Walk watch(long seq) {
      watched = seq;
      return this;
    }

    /** The hash of the watched record, when the walk reached it intact. */
    public Optional<String> watchedHash() {
      return Optional.ofNullable(watchedHash);
    }

    /** The seq of the last record checked intact (0 before any). */
    public long lastSeq() {
      return previousSeq;
    }

    /** Checks the next record; false once the chain is broken (later records are ignored). */
    public boolean accept(Item item) {
      if (broken == null) {
        broken = check(item);
      }
      return broken == null;
    }

    public Verdict verdict() {
      return broken != null ? broken : new Verdict(checked, Optional.empty(), previousHash);
    }

    private Verdict check(Item item) {
      JsonNode node;
      try {
        node = CanonicalJson.JSON.readTree(item.text());
      } catch (JsonProcessingException e) {
        return broken(checked, item, 0, "", "not JSON: " + e.getOriginalMessage());
      }
      if (!node.isObject()) {
        return broken(checked, item, 0, "", "not a JSON object");
      }
      ObjectNode body = ((ObjectNode) node).deepCopy();
      long seq = body.path("seq").asLong(0);
      String eventId = body.path("event_id").asText("");
      String hash = body.path("hash").asText("");
      body.remove("hash");
      String recomputed = CanonicalJson.sha256(CanonicalJson.text(body));
      if (!recomputed.equals(hash)) {
        return broken(
            checked,
            item,
            seq,
            eventId,
            "the record was edited: its content does not hash to its hash");
      }
      String linked = body.path("previous_hash").asText("");
      if (!linked.equals(previousHash)) {
        return broken(
            checked,
            item,
            seq,
            eventId,
            "previous_hash does not match the hash of the record before it (seq "
                + previousSeq
                + "): a record before it was removed, moved or rewritten");
      }
      if (seq != previousSeq + 1) {
        return broken(checked, item, seq, eventId, "seq " + seq + " follows seq " + previousSeq);
      }
      previousHash = hash;
      previousSeq = seq;
      if (seq == watched) {
        watchedHash = hash;
      }
      checked++;
      return null;
    }
  }

  private static Verdict broken(long checked, Item item, long seq, String eventId, String why) {
    return new Verdict(checked, Optional.of(new Break(item.where(), seq, eventId, why)), "");
  }
}
