package io.sentinel.site.revision;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which revisions replace the active set: newer, valid, signed by a trusted key unless the site
 * allows unsigned revisions, and reviewed by a second, review key when an interlock or safety rule
 * changes, always (seed 001: "A priority-100 rule can still be replaced only by a reviewed
 * revision").
 */
class RevisionGateTest {
  static final KeyPair OPS = RevisionKeys.generate();
  static final KeyPair REVIEWER = RevisionKeys.generate();
  static final KeyPair STRANGER = RevisionKeys.generate();
  static final RevisionKeys KEYS = keys(OPS, REVIEWER);

  /** A keys file as an operator writes it: one key on a line, the review key as PEM. */
  static RevisionKeys keys(KeyPair ops, KeyPair reviewer) {
    Problems problems = new Problems();
    RevisionKeys keys =
        RevisionKeys.load(
            "keys.yaml",
            "keys:\n  ops: { public_key: \""
                + RevisionKeys.publicBase64(ops.getPublic())
                + "\" }\n  safety-officer:\n    review: true\n    public_key: |\n"
                + RevisionKeys.publicPem(reviewer.getPublic()).indent(6),
            problems);
    assertThat(problems.sorted()).isEmpty();
    return keys;
  }

  static final String BOILER = RevisionDocumentTest.BOILER;
  static final RevisionGate.Active ACTIVE = active(RevisionDocumentTest.SITE, 5, BOILER);

  static RevisionGate.Active active(Site site, long n, String rules) {
    RevisionDocument.Checked c =
        RevisionDocument.check(
            "ruleset",
            "revision: " + n + "\nsite: " + site.name() + "\nrules:\n" + rules,
            site.basis(),
            site.name());
    return new RevisionGate.Active(n, c.contentHash(), c.ruleSet().orElseThrow());
  }

  /** The document with a signature by {@code key} over its canonical body. */
  static String signed(String doc, KeyPair key, Site site) {
    RevisionDocument.Checked c = RevisionDocument.check("ruleset", doc, site.basis(), site.name());
    return doc + "\nsignature: " + RevisionKeys.sign(key.getPrivate(), c.canonicalBody()) + "\n";
  }

  /** The document with a reviewer's signature by {@code key} over its canonical body. */
  static String reviewed(String doc, KeyPair key) {
    return RevisionDocument.withSignature(doc, key.getPrivate(), RevisionDocument.REVIEW_SIGNATURE);
  }

  /**
   * Without keys, as a site that allows unsigned revisions (what the gateway did before issue 17);
   * with keys, as one that does not.
   */
  static RevisionGate.Verdict decide(String doc, Optional<RevisionKeys> keys) {
    return decide(doc, new RevisionGate.Trust(keys, keys.isEmpty()));
  }

  static RevisionGate.Verdict decide(String doc, RevisionGate.Trust trust) {
    return decide(RevisionDocumentTest.SITE, ACTIVE, doc, trust);
  }

  static RevisionGate.Verdict decide(
      Site site, RevisionGate.Active active, String doc, Optional<RevisionKeys> keys) {
    return decide(site, active, doc, new RevisionGate.Trust(keys, keys.isEmpty()));
  }

  static RevisionGate.Verdict decide(
      Site site, RevisionGate.Active active, String doc, RevisionGate.Trust trust) {
    return RevisionGate.decide(
        RevisionDocument.check("ruleset", doc, site.basis(), site.name()),
        active,
        trust,
        "ruleset");
  }

  static RevisionGate.Reject rejected(RevisionGate.Verdict v) {
    assertThat(v).isInstanceOf(RevisionGate.Reject.class);
    return (RevisionGate.Reject) v;
  }

  static List<String> codes(RevisionGate.Reject r) {
    return r.problems().stream().filter(Problem::isError).map(Problem::code).toList();
  }

  @Test
  void withoutKeys_aNewerValidRevisionIsAccepted_unsigned() {
    RevisionGate.Verdict v = decide(RevisionDocumentTest.doc(6, BOILER), Optional.empty());
    assertThat(v).isInstanceOf(RevisionGate.Accept.class);
    RevisionGate.Accept a = (RevisionGate.Accept) v;
    assertThat(a.revision()).isEqualTo(6);
    assertThat(a.signer()).isEmpty();
    assertThat(a.changes().none()).isTrue();
  }

  @Test
  void withoutKeys_aSignatureIsNotCheckedAndSaysSo() {
    String doc = signed(RevisionDocumentTest.doc(6, BOILER), STRANGER, RevisionDocumentTest.SITE);
    RevisionGate.Accept a = (RevisionGate.Accept) decide(doc, Optional.empty());
    assertThat(a.warnings()).extracting(Problem::code).contains("REV-024");
  }

  @Test
  void olderOrEqualRevisionNumbers_areRefusedWithAReason() {
    RevisionGate.Reject older =
        rejected(decide(RevisionDocumentTest.doc(4, BOILER), Optional.empty()));
    assertThat(older.reason()).isEqualTo("stale");
    assertThat(older.problems().get(0).message()).contains("older than the active revision 5");
    String other = RevisionDocumentTest.doc(5, BOILER.replace("> 35", "> 30"));
    RevisionGate.Reject equal = rejected(decide(other, Optional.empty()));
    assertThat(codes(equal)).containsExactly("REV-030");
    assertThat(equal.problems().get(0).message()).contains("already active with other content");
  }

  @Test
  void theActiveRevisionDeliveredAgain_isANoOp_asJsonOrYamlAlike() {
    assertThat(decide(RevisionDocumentTest.doc(5, BOILER), Optional.empty()))
        .isEqualTo(new RevisionGate.Unchanged(5));
  }

  @Test
  void anInvalidRevision_isRejectedWithItsProblems_beforeAnyOrderingOrSignature() {
    RevisionGate.Reject r =
        rejected(decide(RevisionDocumentTest.doc(6, BOILER) + "extra: 1\n", Optional.of(KEYS)));
    assertThat(r.reason()).isEqualTo("invalid");
    assertThat(codes(r)).contains("YAML-015", "REV-020");
  }

  @Test
  void withKeys_anUnsignedRevisionIsRejected() {
    RevisionGate.Reject r =
        rejected(decide(RevisionDocumentTest.doc(6, BOILER), Optional.of(KEYS)));
    assertThat(r.reason()).isEqualTo("unsigned");
    assertThat(codes(r)).containsExactly("REV-020");
  }

  @Test
  void withKeys_aSignatureByAnUnknownKeyOrOverOtherContent_isForged() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace("> 35", "> 30"));
    RevisionGate.Reject stranger =
        rejected(decide(signed(doc, STRANGER, RevisionDocumentTest.SITE), Optional.of(KEYS)));
    assertThat(stranger.reason()).isEqualTo("forged");
    assertThat(codes(stranger)).containsExactly("REV-021");
    String tampered = signed(doc, OPS, RevisionDocumentTest.SITE).replace("> 30", "> 20");
    assertThat(rejected(decide(tampered, Optional.of(KEYS))).reason()).isEqualTo("forged");
  }

  @Test
  void withKeys_aTrustedSignatureIsAccepted_andNamesItsKey() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace("> 35", "> 30"));
    RevisionGate.Verdict v = decide(signed(doc, OPS, RevisionDocumentTest.SITE), Optional.of(KEYS));
    assertThat(v).isInstanceOf(RevisionGate.Accept.class);
    assertThat(((RevisionGate.Accept) v).signer()).contains("ops");
    assertThat(((RevisionGate.Accept) v).changes().changed()).containsExactly("pump-run-on");
  }

  @Test
  void changingAnInterlock_needsAReviewKey() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace(">= 95 degC", ">= 99 degC"));
    RevisionGate.Reject r =
        rejected(decide(signed(doc, OPS, RevisionDocumentTest.SITE), Optional.of(KEYS)));
    assertThat(r.reason()).isEqualTo("unreviewed");
    assertThat(r.problems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.code()).isEqualTo("REV-022");
              assertThat(p.rule()).isEqualTo("boiler-overheat-cutoff");
              assertThat(p.message())
                  .contains("changes interlock rule", "needs a review signature");
            });
    String authored = signed(doc, OPS, RevisionDocumentTest.SITE);
    RevisionGate.Accept a =
        (RevisionGate.Accept) decide(reviewed(authored, REVIEWER), Optional.of(KEYS));
    assertThat(a.signer()).contains("ops");
    assertThat(a.reviewer()).contains("safety-officer");
  }

  @Test
  void aReviewIsASecondReviewKeysSignature_notTheAuthorsOwnNorAnOrdinaryKeys() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace(">= 95 degC", ">= 99 degC"));
    // Issue 17: a review key's signature as the author's alone no longer reviews the change.
    String byReviewerAlone = signed(doc, REVIEWER, RevisionDocumentTest.SITE);
    assertThat(codes(rejected(decide(byReviewerAlone, Optional.of(KEYS)))))
        .containsExactly("REV-022");
    RevisionGate.Reject self =
        rejected(decide(reviewed(byReviewerAlone, REVIEWER), Optional.of(KEYS)));
    assertThat(codes(self)).containsExactlyInAnyOrder("REV-022", "REV-027");
    RevisionGate.Reject ordinary =
        rejected(
            decide(reviewed(signed(doc, OPS, RevisionDocumentTest.SITE), OPS), Optional.of(KEYS)));
    assertThat(codes(ordinary)).containsExactlyInAnyOrder("REV-022", "REV-026");
    assertThat(ordinary.problems())
        .anySatisfy(p -> assertThat(p.message()).contains("'ops', which is not a review key"));
    RevisionGate.Reject forged =
        rejected(
            decide(
                reviewed(signed(doc, OPS, RevisionDocumentTest.SITE), STRANGER),
                Optional.of(KEYS)));
    assertThat(forged.reason()).isEqualTo("forged");
  }

  @Test
  void withoutKeysOrAllowUnsigned_everyRevisionIsRejected_sayingHowToSetUpKeys() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace("> 35", "> 30"));
    RevisionGate.Reject r = rejected(decide(doc, RevisionGate.Trust.NONE));
    assertThat(r.reason()).isEqualTo("unsigned");
    assertThat(r.problems().get(0).message())
        .contains("allow_unsigned_revisions", "sentinel keygen", "keys.yaml");
    RevisionGate.Reject signedAnyway =
        rejected(decide(signed(doc, OPS, RevisionDocumentTest.SITE), RevisionGate.Trust.NONE));
    assertThat(codes(signedAnyway)).containsExactly("REV-025");
  }

  @Test
  void allowUnsigned_stillNeedsAReview_whichWithoutKeysCannotBeHad() {
    String doc = RevisionDocumentTest.doc(6, BOILER.replace(">= 95 degC", ">= 99 degC"));
    RevisionGate.Trust unsignedNoKeys = new RevisionGate.Trust(Optional.empty(), true);
    RevisionGate.Reject r = rejected(decide(doc, unsignedNoKeys));
    assertThat(r.reason()).isEqualTo("unreviewed");
    assertThat(r.problems().get(0).message())
        .contains("trusts no keys", "sentinel keygen reviewer --review", "--review-key");
    // A review signature means nothing without keys to check it by.
    assertThat(rejected(decide(reviewed(doc, REVIEWER), unsignedNoKeys)).reason())
        .isEqualTo("unreviewed");

    RevisionGate.Trust unsignedWithKeys = new RevisionGate.Trust(Optional.of(KEYS), true);
    assertThat(rejected(decide(doc, unsignedWithKeys)).reason()).isEqualTo("unreviewed");
    RevisionGate.Accept a = (RevisionGate.Accept) decide(reviewed(doc, REVIEWER), unsignedWithKeys);
    assertThat(a.signer()).isEmpty();
    assertThat(a.reviewer()).contains("safety-officer");
    String ordinary = RevisionDocumentTest.doc(6, BOILER.replace("> 35", "> 30"));
    assertThat(decide(ordinary, unsignedWithKeys)).isInstanceOf(RevisionGate.Accept.class);
  }

  @Test
  void removingOrDisablingAnInterlock_needsAReviewKeyToo() {
    String cutoff = "- id: boiler-overheat-cutoff";
    String removed = BOILER.substring(0, BOILER.indexOf(cutoff));
    RevisionGate.Reject r =
        rejected(
            decide(
                signed(RevisionDocumentTest.doc(6, removed), OPS, RevisionDocumentTest.SITE),
                Optional.of(KEYS)));
    assertThat(r.problems().get(0).message()).contains("removes interlock rule");
    String disabled = BOILER.replace(cutoff + "\n", cutoff + "\n  enabled: false\n");
    RevisionGate.Reject d =
        rejected(
            decide(
                signed(RevisionDocumentTest.doc(6, disabled), OPS, RevisionDocumentTest.SITE),
                Optional.of(KEYS)));
    assertThat(d.problems().get(0).message()).contains("disables interlock rule");
  }

  @Test
  void aPriority100Rule_canBeReplacedOnlyByAReviewedRevision() {
    Site venue = Site.load(Path.of("seeds/venue")).site().orElseThrow();
    String rules = rulesOf(Path.of("seeds/venue/rules"));
    RevisionGate.Active active = active(venue, 3, rules);
    String replaced = rules.replace("      equals: open", "      not_equals: closed");
    assertThat(replaced).isNotEqualTo(rules);
    String doc = "revision: 4\nsite: venue\nrules:\n" + replaced;
    RevisionGate.Reject r =
        rejected(decide(venue, active, signed(doc, OPS, venue), Optional.of(KEYS)));
    assertThat(r.problems()).extracting(Problem::rule).containsExactly("cell4-estop-hold");
    assertThat(r.problems().get(0).message()).contains("changes safety rule");
    assertThat(
            decide(venue, active, reviewed(signed(doc, OPS, venue), REVIEWER), Optional.of(KEYS)))
        .isInstanceOf(RevisionGate.Accept.class);
  }

  /**
   * Issue 17: "a revision that adds, changes, removes or disables an interlock or a safety rule
   * (band interlock/safety, DSL priority 90-100) needs a review signature": an interlock added, and
   * a DSL rule moved into 90-100 or out of it; a move within 0-89 needs the author's key alone.
   */
  @Test
  void addingAnInterlock_orMovingADslRuleAcrossPriority90_needsAReview() {
    String cutoff = BOILER.substring(BOILER.indexOf("- id: boiler-overheat-cutoff"));
    String added =
        BOILER + "\n" + cutoff.replace("id: boiler-overheat-cutoff", "id: boiler-overheat-twin");
    RevisionGate.Reject a =
        rejected(
            decide(
                signed(RevisionDocumentTest.doc(6, added), OPS, RevisionDocumentTest.SITE),
                Optional.of(KEYS)));
    assertThat(a.problems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.code()).isEqualTo("REV-022");
              assertThat(p.message()).contains("adds interlock rule boiler-overheat-twin");
            });

    Site venue = Site.load(Path.of("seeds/venue")).site().orElseThrow();
    String rules = rulesOf(Path.of("seeds/venue/rules"));
    RevisionGate.Active active = active(venue, 3, rules);
    Map<String, String> needsReview =
        Map.of(
            "tournament-period-end", rules.replace("priority: 86", "priority: 90"),
            "cell4-estop-hold", rules.replace("priority: 100", "priority: 89"));
    needsReview.forEach(
        (rule, replaced) -> {
          assertThat(replaced).isNotEqualTo(rules);
          String doc = "revision: 4\nsite: venue\nrules:\n" + replaced;
          RevisionGate.Reject r =
              rejected(decide(venue, active, signed(doc, OPS, venue), Optional.of(KEYS)));
          // A DSL rule over a zone wildcard runs as one rule a zone (rule@zone): each is named.
          assertThat(r.problems())
              .as(rule)
              .isNotEmpty()
              .allSatisfy(
                  p -> {
                    assertThat(p.code()).isEqualTo("REV-022");
                    assertThat(p.rule()).startsWith(rule);
                    assertThat(p.message()).contains("safety rule " + rule);
                  });
          assertThat(
                  decide(
                      venue,
                      active,
                      reviewed(signed(doc, OPS, venue), REVIEWER),
                      Optional.of(KEYS)))
              .as(rule + ", reviewed")
              .isInstanceOf(RevisionGate.Accept.class);
        });
    String below =
        "revision: 4\nsite: venue\nrules:\n" + rules.replace("priority: 86", "priority: 89");
    assertThat(decide(venue, active, signed(below, OPS, venue), Optional.of(KEYS)))
        .isInstanceOf(RevisionGate.Accept.class);
  }

  @Test
  void aKeysFileWithProblems_namesThem() {
    Problems problems = new Problems();
    RevisionKeys.load(
        "keys.yaml", "keys:\n  a: { public_key: bm90IGEga2V5 }\n  b: { review: yes }\n", problems);
    assertThat(problems.sorted()).extracting(Problem::code).containsExactly("KEY-003", "KEY-002");
    Problems none = new Problems();
    RevisionKeys.load("keys.yaml", "keys: {}\n", none);
    assertThat(none.sorted()).extracting(Problem::code).containsExactly("KEY-001");
  }

  /** Every rule file of a folder as one rules: list (each a single DSL rule or a list). */
  static String rulesOf(Path dir) {
    StringBuilder b = new StringBuilder();
    for (Path f : Site.yamlFiles(dir)) {
      String text = Site.read(f);
      if (text.lines().anyMatch(l -> l.startsWith("rule:"))) {
        b.append(
            text.lines()
                .filter(l -> !l.startsWith("#"))
                .map(l -> (l.startsWith("rule:") ? "- " : "  ") + l)
                .reduce("", (x, y) -> x + y + "\n"));
      } else {
        b.append(text).append('\n');
      }
    }
    return b.toString();
  }
}
