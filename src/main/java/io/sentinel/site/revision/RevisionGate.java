package io.sentinel.site.revision;

import io.sentinel.derived.DerivedPoint;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleChanges;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Whether a checked revision document may replace the active rule set (docs/revisions.md): it must
 * be valid, newer than the active revision, and signed by a trusted key unless the site allows
 * unsigned revisions; a revision that adds, changes, toggles or removes an interlock or safety rule
 * (or changes a derived point one reads) needs a review signature as well, always: by a key marked
 * for review, other than the author's. Every reason is given at once.
 */
public final class RevisionGate {
  private static final Set<Band> REVIEWED = Set.of(Band.INTERLOCK, Band.SAFETY);

  /**
   * How a site sets up trusted keys and reviewers; said wherever a revision cannot pass for lack.
   */
  static final String KEY_SETUP =
      "make an author and a reviewer key (sentinel keygen author; sentinel keygen reviewer"
          + " --review), trust both in keys.yaml, restart the gateway, then push with --key"
          + " author.key --review-key reviewer.key";

  private RevisionGate() {}

  /**
   * What a site trusts.
   *
   * @param keys its trusted keys ({@code keys.yaml}); empty when it has none
   * @param allowUnsigned {@code allow_unsigned_revisions: true} in site.yaml: a revision needs no
   *     author's signature (a review signature still, where one is needed)
   */
  public record Trust(Optional<RevisionKeys> keys, boolean allowUnsigned) {
    /** No keys, nothing unsigned: every revision is rejected. */
    public static final Trust NONE = new Trust(Optional.empty(), false);
  }

  /** The rule set running now, and the revision it came from. */
  public record Active(long revision, String contentHash, RuleSet ruleSet) {}

  public sealed interface Verdict {}

  /** The active revision delivered again (a retained message after a reconnect): nothing to do. */
  public record Unchanged(long revision) implements Verdict {}

  /**
   * @param signer the trusted key that signed it; empty when unsigned (or no keys to check it)
   * @param reviewer the review key that reviewed it; empty when it needed no review and had none
   * @param warnings problems that do not stop it (also the document's own warnings)
   */
  public record Accept(
      long revision,
      String contentHash,
      RuleSet ruleSet,
      RuleChanges changes,
      Optional<String> signer,
      Optional<String> reviewer,
      List<Problem> warnings)
      implements Verdict {}

  /**
   * @param reason one word for the control event: invalid, stale, unsigned, forged, unreviewed
   */
  public record Reject(OptionalLong revision, String reason, List<Problem> problems)
      implements Verdict {}

  /**
   * @param trust the site's trusted keys and whether it allows unsigned revisions
   * @param file the name problems carry (the topic's, {@code ruleset})
   */
  public static Verdict decide(
      RevisionDocument.Checked candidate, Active active, Trust trust, String file) {
    Problems problems = new Problems();
    candidate.problems().forEach(problems::add);
    String[] reason = {candidate.valid() ? "" : "invalid"};
    OptionalLong number = candidate.revision();
    if (number.isPresent()) {
      long n = number.getAsLong();
      if (n == active.revision() && candidate.contentHash().equals(active.contentHash())) {
        return new Unchanged(n);
      }
      if (n <= active.revision()) {
        problems.error(
            RevisionCodes.REV_030,
            file,
            0,
            "",
            n == active.revision()
                ? "revision "
                    + n
                    + " is already active with other content: a new revision needs a number"
                    + " above "
                    + active.revision()
                : "revision "
                    + n
                    + " is older than the active revision "
                    + active.revision()
                    + ": revisions only move forward");
        reason(reason, "stale");
      }
    }
    Optional<RevisionKeys.TrustedKey> signer = author(candidate, trust, file, problems, reason);
    Optional<RevisionKeys.TrustedKey> reviewer =
        reviewer(candidate, trust, signer, file, problems, reason);
    if (candidate.valid() && reviewer.isEmpty()) {
      for (String[] r : needingReview(active.ruleSet(), candidate.ruleSet().orElseThrow())) {
        problems.error(
            RevisionCodes.REV_022,
            file,
            0,
            r[0],
            r[1]
                + (trust.keys().isEmpty()
                    ? ": needs a review signature, and this gateway trusts no keys, so no change"
                        + " to an interlock or safety rule can be reviewed: "
                        + KEY_SETUP
                    : ": needs a review signature (review_signature, by a key with review: true"
                        + " other than the author's: sentinel push --review-key KEY)"));
        reason(reason, "unreviewed");
      }
    }
    if (problems.hasErrors()) {
      return new Reject(number, reason[0].isEmpty() ? "invalid" : reason[0], problems.sorted());
    }
    RuleSet next = candidate.ruleSet().orElseThrow();
    return new Accept(
        number.orElseThrow(),
        candidate.contentHash(),
        next,
        RuleChanges.between(active.ruleSet(), next),
        signer.map(RevisionKeys.TrustedKey::name),
        reviewer.map(RevisionKeys.TrustedKey::name),
        problems.sorted());
  }

  private static void reason(String[] reason, String r) {
    if (reason[0].isEmpty()) {
      reason[0] = r;
    }
  }

  /** The trusted key of the author's signature; errors when one is needed and missing or false. */
  private static Optional<RevisionKeys.TrustedKey> author(
      RevisionDocument.Checked candidate,
      Trust trust,
      String file,
      Problems problems,
      String[] reason) {
    if (candidate.signature().isEmpty()) {
      if (!trust.allowUnsigned()) {
        problems.error(
            RevisionCodes.REV_020,
            file,
            0,
            "",
            trust.keys().isEmpty()
                ? "unsigned: this site trusts no keys and does not set allow_unsigned_revisions:"
                    + " true in site.yaml, so it accepts no pushed revision; "
                    + KEY_SETUP
                : "unsigned: this gateway accepts only revisions signed by a trusted key (sentinel"
                    + " push --key KEY)");
        reason(reason, "unsigned");
      }
      return Optional.empty();
    }
    if (trust.keys().isEmpty()) {
      if (trust.allowUnsigned()) {
        problems.warning(
            RevisionCodes.REV_024,
            file,
            0,
            "",
            "signature not checked: this gateway trusts no keys (sentinel.ruleset.keys-file)");
      } else {
        problems.error(
            RevisionCodes.REV_025,
            file,
            0,
            "",
            "signature cannot be checked: this site trusts no keys (keys.yaml), so it accepts no"
                + " pushed revision; "
                + KEY_SETUP);
        reason(reason, "unsigned");
      }
      return Optional.empty();
    }
    if (candidate.canonicalBody().isEmpty()) {
      return Optional.empty();
    }
    Optional<RevisionKeys.TrustedKey> key =
        trust.keys().get().signer(candidate.canonicalBody(), candidate.signature().get());
    if (key.isEmpty()) {
      problems.error(
          RevisionCodes.REV_021,
          file,
          0,
          "",
          "signature does not verify with any trusted key: forged, signed by an unknown key, or"
              + " changed after signing");
      reason(reason, "forged");
    }
    return key;
  }

  /**
   * The review key of the review signature, when it verifies with a key marked for review other
   * than the author's; errors when one is given that does not.
   */
  private static Optional<RevisionKeys.TrustedKey> reviewer(
      RevisionDocument.Checked candidate,
      Trust trust,
      Optional<RevisionKeys.TrustedKey> author,
      String file,
      Problems problems,
      String[] reason) {
    if (candidate.reviewSignature().isEmpty()
        || trust.keys().isEmpty()
        || candidate.canonicalBody().isEmpty()) {
      // Without keys a review signature proves nothing: a review-needing change says so below.
      return Optional.empty();
    }
    Optional<RevisionKeys.TrustedKey> key =
        trust.keys().get().signer(candidate.canonicalBody(), candidate.reviewSignature().get());
    if (key.isEmpty() || !key.get().review()) {
      problems.error(
          RevisionCodes.REV_026,
          file,
          0,
          "",
          key.isEmpty()
              ? "review_signature does not verify with any trusted key: forged, signed by an"
                  + " unknown key, or changed after signing"
              : "review_signature is by '"
                  + key.get().name()
                  + "', which is not a review key (review: true in keys.yaml)");
      reason(reason, key.isEmpty() ? "forged" : "unreviewed");
      return Optional.empty();
    }
    if (author.isPresent() && author.get().name().equals(key.get().name())) {
      problems.error(
          RevisionCodes.REV_027,
          file,
          0,
          "",
          "review_signature is by the author's own key '"
              + key.get().name()
              + "': a review is a second key's");
      reason(reason, "unreviewed");
      return Optional.empty();
    }
    return key;
  }

  /**
   * The interlock and safety rules a revision adds, changes, toggles or removes, and those that
   * read a derived point whose definition it changes: {rule id, what happens to it}.
   */
  static List<String[]> needingReview(RuleSet before, RuleSet after) {
    Map<String, Rule> old = new LinkedHashMap<>();
    before.rules().forEach(r -> old.put(r.id(), r));
    Map<String, String> oldDerived = new HashMap<>();
    before.derived().ordered().forEach(d -> oldDerived.put(d.id(), d.definitionHash()));
    Map<String, DerivedPoint> newDerived = new HashMap<>();
    after.derived().ordered().forEach(d -> newDerived.put(d.id(), d));
    List<String[]> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Rule r : after.rules()) {
      seen.add(r.id());
      Rule o = old.get(r.id());
      boolean reviewed = REVIEWED.contains(r.band()) || (o != null && REVIEWED.contains(o.band()));
      if (!reviewed) {
        continue;
      }
      String band = (o != null && REVIEWED.contains(o.band()) ? o.band() : r.band()).wireName();
      if (o == null) {
        out.add(new String[] {r.id(), "adds " + band + " rule " + r.id()});
      } else if (!o.definitionHash().equals(r.definitionHash())) {
        out.add(new String[] {r.id(), "changes " + band + " rule " + r.id()});
      } else if (o.enabled() != r.enabled()) {
        out.add(
            new String[] {
              r.id(), (r.enabled() ? "enables " : "disables ") + band + " rule " + r.id()
            });
      } else {
        changedDerivedRead(r, newDerived, oldDerived)
            .ifPresent(
                d ->
                    out.add(
                        new String[] {
                          r.id(),
                          "changes derived point "
                              + d
                              + ", which "
                              + band
                              + " rule "
                              + r.id()
                              + " reads"
                        }));
      }
    }
    for (Rule o : before.rules()) {
      if (!seen.contains(o.id()) && REVIEWED.contains(o.band())) {
        out.add(new String[] {o.id(), "removes " + o.band().wireName() + " rule " + o.id()});
      }
    }
    return out;
  }

  /** A derived point the rule reads, directly or through other derived points, that changed. */
  private static Optional<String> changedDerivedRead(
      Rule r, Map<String, DerivedPoint> derived, Map<String, String> before) {
    Deque<String> todo = new ArrayDeque<>(r.inputs().values());
    Set<String> visited = new HashSet<>();
    while (!todo.isEmpty()) {
      String id = todo.pop();
      DerivedPoint d = derived.get(id);
      if (d == null || !visited.add(id)) {
        continue;
      }
      if (!d.definitionHash().equals(before.get(id))) {
        return Optional.of(id);
      }
      todo.addAll(d.inputs());
    }
    return Optional.empty();
  }
}
