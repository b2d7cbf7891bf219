package io.sentinel.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When the gateway anchors the audit chain's head (issue 17: "at every N records and at least every
 * minute"; docs/persistence.md, "Audit anchors"): the one definition, which the gateway's anchoring
 * asks at every look at the head.
 *
 * @param everyRecords an anchor once the head is this many records past the last anchor (at least
 *     1)
 * @param atLeastEvery an anchor at least this often, records or not: an auditor reading the
 *     retained anchor knows it is never older than this while the gateway runs
 */
public record AnchorCadence(long everyRecords, Duration atLeastEvery) {
  public AnchorCadence {
    if (everyRecords < 1) {
      throw new IllegalArgumentException("an anchor every " + everyRecords + " records");
    }
  }

  /**
   * Whether to anchor the head {@code headSeq} at {@code now}: the first head seen; a head {@link
   * #everyRecords} past the last anchor; an anchor {@link #atLeastEvery} old (again at the same seq
   * when nothing was added, so that the anchor's time says the gateway still vouches for it); at a
   * clean stop, any record the last anchor does not cover.
   */
  public boolean due(Optional<AuditAnchor> last, long headSeq, Instant now, boolean closing) {
    if (last.isEmpty()) {
      return true;
    }
    long since = headSeq - last.get().seq();
    return since >= everyRecords
        || (closing && since != 0)
        || !now.isBefore(last.get().ts().plus(atLeastEvery));
  }
}
