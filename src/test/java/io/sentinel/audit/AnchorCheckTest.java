package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.site.revision.RevisionKeys;
import java.security.KeyPair;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A chain checked against a signed anchor of its head: a cut tail, a chain rebuilt after a removed
 * record, and an anchor not signed by the gateway's key are each named; a whole chain matches.
 */
class AnchorCheckTest {
  private static final KeyPair GATEWAY = RevisionKeys.generate();
  private static final Instant TS = Instant.parse("2026-12-01T14:00:00Z");

  private static List<AuditRecord> chain(int n, String reason) {
    AuditChain head = AuditChain.empty();
    return java.util.stream.IntStream.rangeClosed(1, n)
        .mapToObj(
            i ->
                head.append(
                    new AuditEntry(
                        "firing/r/p/r1/" + i,
                        "firing",
                        "r",
                        1,
                        Map.of(),
                        List.of(),
                        "automation",
                        0,
                        "sole",
                        List.of(),
                        "",
                        "",
                        i,
                        TS,
                        reason + i,
                        Map.of())))
        .toList();
  }

  private static AuditAnchor anchor(AuditRecord last) {
    return AuditAnchor.sign(
        "example", last.seq(), last.hash(), TS, GATEWAY.getPrivate(), GATEWAY.getPublic());
  }

  private static AnchorCheck.Result check(List<AuditRecord> export, AuditAnchor a, boolean key) {
    AuditVerifier.Walk walk = new AuditVerifier.Walk().watch(a.seq());
    for (AuditRecord r : export) {
      walk.accept(new AuditVerifier.Item("line " + r.seq(), r.line()));
    }
    return AnchorCheck.check(
        walk,
        a,
        key ? Optional.of(RevisionKeys.publicBase64(GATEWAY.getPublic())) : Optional.empty());
  }

  @Test
  void aWholeChain_matchesItsAnchor_andRecordsAfterItAreFine() {
    List<AuditRecord> c = chain(30, "x");
    AnchorCheck.Result r = check(c, anchor(c.get(24)), true);
    assertThat(r.ok()).as(r.message()).isTrue();
    assertThat(r.message()).contains("at seq 25 matches (5 records after it)");
  }

  @Test
  void aCutTail_isNamedWithHowManyRecordsWereCut() {
    List<AuditRecord> c = chain(30, "x");
    AuditAnchor a = anchor(c.get(29));
    AnchorCheck.Result r = check(c.subList(0, 20), a, false);
    assertThat(r.ok()).isFalse();
    assertThat(r.message())
        .isEqualTo(
            "CUT: the export ends at seq 20; the anchor of "
                + TS
                + " (key "
                + AuditAnchor.fingerprint(a.publicKey())
                + ") says 30: 10 records cut");
  }

  @Test
  void aChainRebuiltWithFreshHashes_doesNotMatchTheAnchor() {
    AuditAnchor a = anchor(chain(30, "x").get(29));
    AnchorCheck.Result r = check(chain(30, "y"), a, true);
    assertThat(r.ok()).isFalse();
    assertThat(r.message()).startsWith("REWRITTEN: the record at seq 30");
  }

  @Test
  void anAnchorChanged_orSignedByAnotherKey_doesNotVerify() {
    List<AuditRecord> c = chain(30, "x");
    AuditAnchor a = anchor(c.get(29));
    AuditAnchor moved =
        new AuditAnchor(a.site(), 20, c.get(19).hash(), a.ts(), a.publicKey(), a.signature());
    assertThat(check(c.subList(0, 20), moved, false).message()).contains("does not verify");
    KeyPair other = RevisionKeys.generate();
    AuditAnchor foreign =
        AuditAnchor.sign(
            "example", 20, c.get(19).hash(), TS, other.getPrivate(), other.getPublic());
    // It verifies with the key it names, but not with the gateway's.
    assertThat(check(c.subList(0, 20), foreign, false).ok()).isTrue();
    assertThat(check(c.subList(0, 20), foreign, true).message()).contains("does not verify");
    assertThat(AuditAnchor.parse(a.json())).isEqualTo(a);
  }
}
