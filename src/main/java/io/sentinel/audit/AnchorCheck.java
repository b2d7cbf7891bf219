package io.sentinel.audit;

import java.util.Optional;

/**
 * An intact chain checked against the latest anchor: a chain whose tail was cut is still intact, so
 * only the anchor, kept outside it, says it once reached further.
 */
public final class AnchorCheck {
  private AnchorCheck() {}

  /** What the check found, said as a line; {@code ok} false for a cut, a rewrite or a forgery. */
  public record Result(boolean ok, String message) {}

  /**
   * @param walk the export's walk, done, with {@link AuditVerifier.Walk#watch} set to the anchor's
   *     seq
   * @param trustedKey the gateway's public key (base64) to check the anchor by; empty: the key the
   *     anchor names (said in the message, to be compared with the one the gateway logs)
   */
  public static Result check(
      AuditVerifier.Walk walk, AuditAnchor anchor, Optional<String> trustedKey) {
    String key = trustedKey.orElse(anchor.publicKey());
    String of = "the anchor of " + anchor.ts() + " (key " + AuditAnchor.fingerprint(key) + ")";
    if (!anchor.verifiesWith(key)) {
      return new Result(
          false,
          "the anchor's signature does not verify with "
              + (trustedKey.isPresent() ? "the given key" : "the key it names")
              + " ("
              + AuditAnchor.fingerprint(key)
              + "): it is not the gateway's anchor, or it was changed");
    }
    AuditVerifier.Verdict v = walk.verdict();
    if (!v.intact()) {
      return new Result(false, v.describe());
    }
    long last = walk.lastSeq();
    if (last < anchor.seq()) {
      long cut = anchor.seq() - last;
      return new Result(
          false,
          "CUT: the export ends at seq "
              + last
              + "; "
              + of
              + " says "
              + anchor.seq()
              + ": "
              + cut
              + (cut == 1 ? " record" : " records")
              + " cut");
    }
    Optional<String> hash = walk.watchedHash();
    if (hash.isEmpty() || !hash.get().equals(anchor.hash())) {
      return new Result(
          false,
          "REWRITTEN: the record at seq "
              + anchor.seq()
              + " does not have the hash "
              + of
              + " gives: the chain was rewritten up to there");
    }
    return new Result(
        true,
        "intact: "
            + v.checked()
            + " records, head "
            + v.headHash()
            + "; "
            + of
            + " at seq "
            + anchor.seq()
            + " matches"
            + (last > anchor.seq() ? " (" + (last - anchor.seq()) + " records after it)" : "")
            + (trustedKey.isPresent()
                ? ""
                : "; compare its key with the one the gateway logs at start"));
  }
}
