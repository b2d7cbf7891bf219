package io.sentinel.site.revision;

import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.YamlFile;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Whether a checked {@code mode: shadow} revision may run beside the active set (docs/shadow.md):
 * exactly what {@link RevisionGate} asks of an active revision (valid, above the active number,
 * signed, reviewed where it changes an interlock or safety rule against the active set), and above
 * the shadow revision running now, if any. The shadow running delivered again is {@code Unchanged}.
 */
public final class ShadowGate {
  private static final Set<String> LEFT_OUT_WHEN_PROMOTED =
      Set.of(RevisionDocument.SIGNATURE, RevisionDocument.REVIEW_SIGNATURE, RevisionDocument.MODE);

  private ShadowGate() {}

  /** The shadow revision running now. */
  public record Running(long revision, String contentHash) {}

  /**
   * @param running the shadow revision running now, if any
   * @return {@link RevisionGate.Accept} to run it in shadow, {@link RevisionGate.Reject} with every
   *     problem, or {@link RevisionGate.Unchanged} for the running shadow delivered again
   */
  public static RevisionGate.Verdict decide(
      RevisionDocument.Checked candidate,
      RevisionGate.Active active,
      Optional<Running> running,
      RevisionGate.Trust trust,
      String file) {
    OptionalLong number = candidate.revision();
    if (number.isPresent()
        && running.isPresent()
        && number.getAsLong() == running.get().revision()
        && candidate.contentHash().equals(running.get().contentHash())) {
      return new RevisionGate.Unchanged(number.getAsLong());
    }
    RevisionGate.Verdict verdict = RevisionGate.decide(candidate, active, trust, file);
    if (number.isEmpty()
        || running.isEmpty()
        || number.getAsLong() > running.get().revision()
        || verdict instanceof RevisionGate.Unchanged) {
      return verdict;
    }
    long n = number.getAsLong();
    Problems problems = new Problems();
    problems.error(
        RevisionCodes.REV_110,
        file,
        0,
        "",
        "shadow revision "
            + n
            + " is not newer than the shadow revision "
            + running.get().revision()
            + " running now: a newer shadow needs a number above "
            + running.get().revision());
    String reason = "stale";
    if (verdict instanceof RevisionGate.Reject r) {
      r.problems().forEach(problems::add);
      reason = r.reason();
    } else if (verdict instanceof RevisionGate.Accept a) {
      a.warnings().forEach(problems::add);
    }
    return new RevisionGate.Reject(number, reason, problems.sorted());
  }

  /**
   * The canonical body the revision has once promoted: its own, without {@code mode} (and, as
   * always, without signatures). Its SHA-256 is the promoted revision's content hash; {@code
   * sentinel promote} signs and publishes it as the active revision. Empty when the text is not one
   * mapping.
   */
  public static Optional<String> promotedBody(String text) {
    List<Node> documents = new YamlFile("revision", new Problems()).parseAll(text);
    return documents.size() == 1 && documents.get(0) instanceof MappingNode
        ? CanonicalBody.of(documents.get(0), LEFT_OUT_WHEN_PROMOTED)
        : Optional.empty();
  }
}
