package io.sentinel.site.revision;

import io.sentinel.derived.DerivedSet;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.DerivedLoader;
import io.sentinel.site.RegistryLoader;
import io.sentinel.site.RuleLoader;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.DocumentShapes;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.YamlFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * A rule-set revision document (CONTRACT section 4): {@code revision}, {@code site}, optional
 * {@code points} and {@code derived}, {@code rules} and an optional {@code signature}, in YAML or
 * JSON. It is parsed and validated as a whole against the basis of a site (its registry, derived
 * points and settings); any error, an unknown key included, means no rule set. The same check
 * serves the gateway's {@code ruleset} topic and {@code POST /api/v1/rules:validate}.
 */
public final class RevisionDocument {
  private RevisionDocument() {}

  /** The author's signature: by any trusted key. */
  public static final String SIGNATURE = "signature";

  /**
   * A revision document larger than this is refused unread: by the gateway (REV-008), and by {@code
   * sentinel push} before anything is published.
   */
  public static final int MAX_BYTES = 1 << 20;

  /** A reviewer's signature over the same body: by a key marked {@code review: true}. */
  public static final String REVIEW_SIGNATURE = "review_signature";

  /** {@code mode: shadow} runs a revision beside the active set (docs/shadow.md). */
  public static final String MODE = "mode";

  /** What a canonical body leaves out: the signatures, so that either may be added in any order. */
  static final java.util.Set<String> SIGNATURES = java.util.Set.of(SIGNATURE, REVIEW_SIGNATURE);

  /**
   * What a check found. The number, site and signature are given whenever they could be read, so
   * that a rejection can name the revision it rejects.
   *
   * @param canonicalBody the text a signature covers ({@link CanonicalBody}); empty when the
   *     document could not be read that far
   * @param ruleSet the validated rule set: present only when there is no error
   */
  public record Checked(
      OptionalLong revision,
      Optional<String> site,
      Optional<String> signature,
      Optional<String> reviewSignature,
      String canonicalBody,
      Optional<RuleSet> ruleSet,
      List<Problem> problems,
      boolean shadow) {
    public Checked {
      problems = List.copyOf(problems);
    }

    public boolean valid() {
      return ruleSet.isPresent();
    }

    /** A check without {@code mode: shadow}: an active revision (the default). */
    public Checked(
        OptionalLong revision,
        Optional<String> site,
        Optional<String> signature,
        Optional<String> reviewSignature,
        String canonicalBody,
        Optional<RuleSet> ruleSet,
        List<Problem> problems) {
      this(revision, site, signature, reviewSignature, canonicalBody, ruleSet, problems, false);
    }

    /** SHA-256 (hex) of the canonical body: what the document means, signature aside. */
    public String contentHash() {
      return CanonicalBody.sha256(canonicalBody);
    }
  }

  /**
   * Parses and validates a revision document.
   *
   * @param file the name problems carry (e.g. {@code ruleset} for the MQTT topic, or a file name)
   * @param basis the site's registry, derived points and settings that the rules must fit
   * @param siteName the site the document must name
   */
  public static Checked check(String file, String text, Site.Basis basis, String siteName) {
    Problems problems = new Problems();
    YamlFile yaml = new YamlFile(file, problems);
    List<Node> documents = yaml.parseAll(text);
    if (documents.isEmpty()) {
      if (!problems.hasErrors()) {
        problems.error(RevisionCodes.REV_001, file, 0, "", "a revision document is empty");
      }
      return rejected(problems, OptionalLong.empty(), Optional.empty(), Optional.empty(), "");
    }
    if (documents.size() > 1) {
      yaml.error(
          documents.get(1),
          RevisionCodes.REV_001,
          "",
          "a revision is one document; found a second (---)");
    }
    Node root = documents.get(0);
    Optional<YamlFile.Fields> maybe =
        yaml.mapping(root, "revision document", "", DocumentShapes.REVISION.keys());
    if (maybe.isEmpty()) {
      return rejected(problems, OptionalLong.empty(), Optional.empty(), Optional.empty(), "");
    }
    YamlFile.Fields f = maybe.get();
    OptionalLong number = revisionNumber(yaml, f);
    Optional<String> site = f.get("site").flatMap(n -> yaml.text(n, "site", ""));
    if (!f.has("site")) {
      yaml.error(
          root, RevisionCodes.REV_004, "", "a revision names its site: add site: " + siteName);
    } else if (site.isPresent() && !site.get().equals(siteName)) {
      yaml.error(
          f.get("site").orElseThrow(),
          RevisionCodes.REV_005,
          "",
          "site: this revision is for site '" + site.get() + "', not '" + siteName + "'");
    }
    Optional<String> signature = f.get(SIGNATURE).flatMap(n -> signature(yaml, n, SIGNATURE));
    Optional<String> review =
        f.get(REVIEW_SIGNATURE).flatMap(n -> signature(yaml, n, REVIEW_SIGNATURE));
    boolean shadow = shadowMode(yaml, f);
    String body = CanonicalBody.of(root, SIGNATURES).orElse("");
    checkPoints(yaml, f, basis.points());
    DerivedSet derived =
        f.get("derived")
            .map(n -> DerivedLoader.fromNode(yaml, n, basis.points()))
            .orElse(basis.derived());
    Site.Basis revisionBasis = new Site.Basis(basis.points(), derived, basis.settings());
    if (!f.has("rules")) {
      yaml.error(
          root,
          RevisionCodes.REV_006,
          "",
          "a revision holds its whole rule set under rules: (a list)");
    }
    RuleSet ruleSet =
        Site.assemble(
            revisionBasis,
            (registry, settings, generated) ->
                f.get("rules")
                    .map(n -> RuleLoader.fromNodes(yaml, n, registry, settings, generated))
                    .orElse(List.of()),
            problems);
    Optional<RuleSet> valid = problems.hasErrors() ? Optional.empty() : Optional.of(ruleSet);
    return new Checked(number, site, signature, review, body, valid, problems.sorted(), shadow);
  }

  /**
   * {@code mode}: {@code active} (the default) or {@code shadow} (docs/shadow.md). It is part of
   * the canonical body, so a signature over a shadow revision does not activate it.
   */
  private static boolean shadowMode(YamlFile yaml, YamlFile.Fields f) {
    Optional<Node> node = f.get(MODE);
    if (node.isEmpty()) {
      return false;
    }
    Optional<String> mode = yaml.text(node.get(), MODE, "");
    if (mode.isPresent() && !mode.get().equals("active") && !mode.get().equals("shadow")) {
      yaml.error(
          node.get(),
          RevisionCodes.REV_111,
          "",
          "mode: expected active or shadow, found '" + mode.get() + "'");
    }
    return mode.filter("shadow"::equals).isPresent();
  }

  /**
   * The canonical body of a document (what a signature covers), without checking it against a site;
   * empty when it is not one readable mapping.
   */
  public static Optional<String> canonicalBody(String text) {
    List<Node> documents = new YamlFile("revision", new Problems()).parseAll(text);
    return documents.size() == 1 && documents.get(0) instanceof MappingNode
        ? CanonicalBody.of(documents.get(0), SIGNATURES)
        : Optional.empty();
  }

  /** The document with the author's {@code signature:} added. */
  public static String withSignature(String text, java.security.PrivateKey key) {
    return withSignature(text, key, SIGNATURE);
  }

  /**
   * The document with {@code field} ({@link #SIGNATURE} or {@link #REVIEW_SIGNATURE}) added, signed
   * by {@code key} over its canonical body; its lines stay where they were (appended to a block
   * mapping, inserted before a JSON object's closing brace), so problems the gateway reports point
   * at the file as written.
   *
   * @throws IllegalArgumentException when the text is not one mapping, or has that field already
   */
  public static String withSignature(String text, java.security.PrivateKey key, String field) {
    Problems problems = new Problems();
    List<Node> documents = new YamlFile("revision", problems).parseAll(text);
    if (documents.size() != 1 || !(documents.get(0) instanceof MappingNode root)) {
      throw new IllegalArgumentException(
          problems.sorted().stream()
              .findFirst()
              .map(Problem::format)
              .orElse("a revision document is one mapping (revision:, site:, rules:)"));
    }
    if (!YamlFile.scalarOf(root, field).isEmpty()
        || root.getValue().stream()
            .anyMatch(
                t ->
                    t.getKeyNode() instanceof org.snakeyaml.engine.v2.nodes.ScalarNode k
                        && k.getValue().equals(field))) {
      throw new IllegalArgumentException(
          "the document is signed already (it has a " + field + "): remove it to sign it again");
    }
    String body =
        CanonicalBody.of(root, SIGNATURES)
            .orElseThrow(
                () -> new IllegalArgumentException("a key is repeated or not a plain name"));
    String signature = RevisionKeys.sign(key, body);
    if (root.getFlowStyle() == org.snakeyaml.engine.v2.common.FlowStyle.FLOW) {
      // After the last member, before the whitespace that leads to the closing brace.
      int at = text.lastIndexOf('}');
      while (at > 0 && Character.isWhitespace(text.charAt(at - 1))) {
        at--;
      }
      String sep = root.getValue().isEmpty() ? "" : ", ";
      return text.substring(0, at)
          + sep
          + "\""
          + field
          + "\": \""
          + signature
          + "\""
          + text.substring(at);
    }
    return (text.endsWith("\n") ? text : text + "\n") + field + ": " + signature + "\n";
  }

  private static Checked rejected(
      Problems problems,
      OptionalLong number,
      Optional<String> site,
      Optional<String> signature,
      String body) {
    return new Checked(
        number, site, signature, Optional.empty(), body, Optional.empty(), problems.sorted());
  }

  private static OptionalLong revisionNumber(YamlFile yaml, YamlFile.Fields f) {
    Optional<Node> node = f.get("revision");
    if (node.isEmpty()) {
      yaml.error(
          f.node(),
          RevisionCodes.REV_002,
          "",
          "a revision needs its number: revision: <integer, increasing>");
      return OptionalLong.empty();
    }
    Optional<String> text = yaml.text(node.get(), "revision", "");
    if (text.isPresent() && YamlFile.isPlain(node.get()) && text.get().matches("[0-9]{1,18}")) {
      long n = Long.parseLong(text.get());
      if (n > 0) {
        return OptionalLong.of(n);
      }
    }
    text.ifPresent(
        t ->
            yaml.error(
                node.get(),
                RevisionCodes.REV_003,
                "",
                "revision: expected a positive integer, found '" + t + "'"));
    return OptionalLong.empty();
  }

  private static Optional<String> signature(YamlFile yaml, Node node, String field) {
    Optional<String> text = yaml.text(node, field, "");
    if (text.isPresent()) {
      try {
        java.util.Base64.getDecoder().decode(text.get().strip());
        return Optional.of(text.get().strip());
      } catch (IllegalArgumentException e) {
        yaml.error(
            node, RevisionCodes.REV_007, "", field + ": not base64 (" + e.getMessage() + ")");
      }
    }
    return Optional.empty();
  }

  /**
   * A revision carries the rules; the registry belongs to the site's files, because its sources and
   * drivers are wired at start. A revision may repeat the points (to be checked alone) but not
   * change them.
   */
  private static void checkPoints(YamlFile yaml, YamlFile.Fields f, Registry running) {
    Optional<Node> node = f.get("points");
    if (node.isEmpty()) {
      return;
    }
    Registry offered = RegistryLoader.fromNode(yaml, node.get());
    List<String> differ = new ArrayList<>();
    for (PointSpec p : offered.points().values()) {
      Optional<PointSpec> r = running.find(p.id());
      if (r.isEmpty()) {
        differ.add(p.id() + " (added)");
      } else if (!p.sameDefinition(r.get())) {
        differ.add(p.id() + " (changed)");
      }
    }
    for (String id : running.points().keySet()) {
      if (offered.find(id).isEmpty()) {
        differ.add(id + " (removed)");
      }
    }
    if (!differ.isEmpty()) {
      yaml.error(
          node.get(),
          RevisionCodes.REV_010,
          "",
          "points: a revision cannot change the point registry ("
              + String.join(", ", differ)
              + "); change points.yaml and restart the gateway, or leave points: out");
    }
  }
}
