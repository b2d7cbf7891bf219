package io.sentinel.cli;

import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.yaml.Problem;
import io.sentinel.store.Revisions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The rule set of a stored revision, as the gateway ran it (docs/replay.md): a revision of the
 * site's files loaded from its recorded files (with the site folder's {@code site.yaml}); a pushed
 * revision's document checked over the basis of the files revision before it.
 */
final class ReplayRules {
  private final Revisions revisions;
  private final Path siteDir;

  ReplayRules(Revisions revisions, Path siteDir) {
    this.revisions = revisions;
    this.siteDir = siteDir;
  }

  /** Thrown with a sentence for the operator when a revision cannot be rebuilt. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message);
    }
  }

  RuleSet of(long revision) throws Exception {
    Revisions.Stored stored =
        revisions
            .stored(revision)
            .orElseThrow(() -> new Unreadable("revision " + revision + " is not recorded"));
    if (stored.source().equals("push")) {
      Revisions.Stored basis =
          revisions
              .filesAtOrBefore(revision)
              .orElseThrow(
                  () ->
                      new Unreadable(
                          "pushed revision " + revision + " has no files revision before it"));
      Site site = load(basis);
      RevisionDocument.Checked checked =
          RevisionDocument.check(
              "revision " + revision,
              stored.files().getOrDefault(Revisions.PUSHED_DOCUMENT, ""),
              site.basis(),
              stored.site());
      return checked
          .ruleSet()
          .orElseThrow(
              () ->
                  new Unreadable(
                      "pushed revision "
                          + revision
                          + " no longer validates: "
                          + checked.problems().stream()
                              .filter(Problem::isError)
                              .map(Problem::format)
                              .findFirst()
                              .orElse("")));
    }
    return load(stored).ruleSet();
  }

  private Site load(Revisions.Stored stored) throws IOException, Unreadable {
    Path dir = Files.createTempDirectory("sentinel-replay-r" + stored.revision() + "-");
    stored.materialize(dir);
    for (String settings : new String[] {"site.yaml", "seeds/site.yaml"}) {
      Path from = siteDir.resolve(settings);
      if (Files.isRegularFile(from) && !Files.exists(dir.resolve("site.yaml"))) {
        Files.copy(from, dir.resolve("site.yaml"));
      }
    }
    Site.Loaded loaded;
    try {
      loaded = Site.load(dir);
    } finally {
      try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
        all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Optional<Site> site = loaded.site();
    if (site.isEmpty()) {
      throw new Unreadable(
          "revision "
              + stored.revision()
              + " does not load: "
              + loaded.problems().stream()
                  .filter(Problem::isError)
                  .map(Problem::format)
                  .findFirst()
                  .orElse(""));
    }
    return site.get();
  }
}
