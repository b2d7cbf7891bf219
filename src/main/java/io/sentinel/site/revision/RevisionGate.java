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
 * be valid, newer than the active revision, and, when the site trusts keys, signed by one of them;
 * a revision that adds, changes, toggles or removes an interlock or safety rule (or changes a
 * derived point one reads) needs a key marked for review. Every reason is given at once.
 */
public final class RevisionGate {
  private static final Set<Band> REVIEWED = Set.of(Band.INTERLOCK, Band.SAFETY);

  private RevisionGate() {}

  /** The rule set running now, and the revision it came from. */
  public record Active(long revision, String contentHash, RuleSet ruleSet) {}

  public sealed interface Verdict {}

  /** The active revision delivered again (a retained message after a reconnect): nothing to do. */
  public record Unchanged(long revision) implements Verdict {}

  /**
   * @param signer the trusted key that signed it; empty when the site trusts no keys
   * @param warnings problems that do not stop it (also the document's own warnings)
   */
  public record Accept(
      long revision,
      String contentHash,
      RuleSet ruleSet,
      RuleChanges changes,
      Optional<String> signer,
      List<Problem> warnings)
      implements Verdict {}

  /**
   * @param reason one word for the control event: invalid, stale, unsigned, forged, unreviewed
   */
  public record Reject(OptionalLong revision, String reason, List<Problem> problems)
      implements Verdict {}

  /**
   * @param keys the site's trusted keys; empty when it trusts none (unsigned revisions accepted)
   * @param file the name problems carry (the topic's, {@code ruleset})
   */
  public static Verdict decide(
      RevisionDocument.Checked candidate, Active active, Optional<RevisionKeys> keys, String file) {
    Problems problems = new Problems();
    candidate.problems().forEach(problems::add);
    String reason = candidate.valid() ? "" : "invalid";
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
        reason = reason.isEmpty() ? "stale" : reason;
      }
    }
    Optional<String> signer = Optional.empty();
    if (keys.isEmpty()) {
      if (candidate.signature().isPresent()) {
        problems.warning(
            RevisionCodes.REV_024,
            file,
            0,
            "",
            "signature not checked: this gateway trusts no keys (sentinel.ruleset.keys-file)");
      }
    } else if (candidate.signature().isEmpty()) {
      problems.error(
          RevisionCodes.REV_020,
          file,
          0,
          "",
          "unsigned: this gateway accepts only revisions signed by a trusted key (sentinel push"
              + " --key KEY)");
      reason = reason.isEmpty() ? "unsigned" : reason;
    } else if (!candidate.canonicalBody().isEmpty()) {
      Optional<RevisionKeys.TrustedKey> key =
          keys.get().signer(candidate.canonicalBody(), candidate.signature().get());
      if (key.isEmpty()) {
        problems.error(
            RevisionCodes.REV_021,
            file,
            0,
            "",
            "signature does not verify with any trusted key: forged, signed by an unknown key, or"
                + " changed after signing");
        reason = reason.isEmpty() ? "forged" : reason;
      } else {
        signer = Optional.of(key.get().name());
        if (candidate.valid() && !key.get().review()) {
          for (String[] r : needingReview(active.ruleSet(), candidate.ruleSet().orElseThrow())) {
            problems.error(
                RevisionCodes.REV_022,
                file,
                0,
                r[0],
                r[1]
                    + ": needs a signature by a review key; signed by '"
                    + key.get().name()
                    + "', which is not one");
            reason = reason.isEmpty() ? "unreviewed" : reason;
          }
        }
      }
    }
    if (problems.hasErrors()) {
      return new Reject(number, reason.isEmpty() ? "invalid" : reason, problems.sorted());
    }
    RuleSet next = candidate.ruleSet().orElseThrow();
    return new Accept(
        number.orElseThrow(),
        candidate.contentHash(),
        next,
        RuleChanges.between(active.ruleSet(), next),
        signer,
        problems.sorted());
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
