package io.sentinel.runtime;

import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.SourcePolicy;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The gateway's start-up steps on the site folder: load and validate it, build the ingest decoder
 * over its registry, read the trusted keys. Each refuses the start with every problem logged.
 */
final class GatewaySite {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  private GatewaySite() {}

  static Site.Loaded load(Path dir) {
    Site.Loaded loaded = Site.load(dir);
    for (Problem p : loaded.problems()) {
      if (p.isError()) {
        LOG.error(p.format());
      } else {
        LOG.warn(p.format());
      }
    }
    if (loaded.site().isPresent()) {
      return loaded;
    }
    throw new IllegalStateException(
        "SEN-001 site "
            + dir
            + " has "
            + loaded.problems().stream().filter(Problem::isError).count()
            + " error(s), listed above; the gateway does not start on a rule set it"
            + " cannot trust");
  }

  /**
   * Derived points are computed here: a sample for one from outside is an unknown point. The
   * registry of points.yaml is the one every revision runs over (docs/revisions.md).
   */
  static IngestDecoder decoder(
      Site site, Topics topics, int maxPayloadBytes, boolean gpioOn, Path dir) {
    List<IngestDecoder.SourceProblem> problems = new ArrayList<>();
    // What may feed which point: docs/runtime.md, "Where inputs may come from".
    IngestDecoder decoder =
        IngestDecoder.of(
            site.basis().points(),
            new SourcePolicy(
                site.basis().derived().ordered().stream()
                    .map(io.sentinel.derived.DerivedPoint::id)
                    .collect(Collectors.toSet()),
                gpioOn),
            topics,
            maxPayloadBytes,
            problems);
    if (!problems.isEmpty()) {
      problems.forEach(
          p ->
              LOG.errorf(
                  "%s: error [SRC-001] %s: %s", p.spec().where(), p.spec().id(), p.message()));
      throw new IllegalStateException(
          "SEN-007 site " + dir + " has errors; the gateway does not start on it");
    }
    return decoder;
  }

  /**
   * The keys signed revisions must carry: {@code sentinel.ruleset.keys-file}, else {@code
   * keys.yaml} in the site folder. Without either, every pushed revision is rejected unless the
   * site allows unsigned ones; the log says which. A keys file with an error stops the start:
   * trusting fewer keys than configured would be a surprise.
   */
  static Optional<RevisionKeys> trustedKeys(Optional<Path> keysFile, Site site, Topics topics) {
    Optional<Path> file =
        keysFile
            .filter(f -> !f.toString().isBlank())
            .or(() -> Optional.of(site.dir().resolve("keys.yaml")).filter(Files::exists));
    boolean allowUnsigned = site.basis().settings().allowUnsignedRevisions();
    if (file.isEmpty()) {
      if (allowUnsigned) {
        LOG.warnf(
            "SEN-030 no trusted keys (sentinel.ruleset.keys-file, or keys.yaml in the site"
                + " folder) and allow_unsigned_revisions: true: UNSIGNED rule-set revisions on %s"
                + " are accepted; a change to an interlock or safety rule is rejected (it cannot"
                + " be reviewed without keys)",
            topics.ruleset());
      } else {
        LOG.infof(
            "SEN-029 no trusted keys (sentinel.ruleset.keys-file, or keys.yaml in the site"
                + " folder): every rule-set revision pushed on %s is rejected (docs/revisions.md:"
                + " sentinel keygen, keys.yaml; or allow_unsigned_revisions: true in site.yaml)",
            topics.ruleset());
      }
      return Optional.empty();
    }
    if (allowUnsigned) {
      LOG.warnf(
          "SEN-015 allow_unsigned_revisions: true: UNSIGNED rule-set revisions on %s are"
              + " accepted; a change to an interlock or safety rule needs a review signature",
          topics.ruleset());
    }
    if (!Files.isRegularFile(file.get())) {
      throw new IllegalStateException(
          "SEN-034 sentinel.ruleset.keys-file " + file.get() + " is not a readable file");
    }
    Problems problems = new Problems();
    RevisionKeys loaded = RevisionKeys.load(file.get().toString(), Site.read(file.get()), problems);
    problems.sorted().forEach(p -> LOG.error(p.format()));
    if (problems.hasErrors()) {
      throw new IllegalStateException(
          "SEN-016 the trusted keys in " + file.get() + " have errors, listed above");
    }
    LOG.infof(
        "SEN-031 rule-set revisions on %s must be signed by one of %d trusted keys from %s (%d for"
            + " review of interlock and safety rules)",
        topics.ruleset(),
        loaded.keys().size(),
        file.get(),
        loaded.keys().stream().filter(RevisionKeys.TrustedKey::review).count());
    return Optional.of(loaded);
  }

  /** Until a GPIO adapter runs in this process, gpio-driven points are commanded over MQTT. */
  static void warnAboutGpio(Site site, Topics topics) {
    String gpio =
        site.ruleSet().registry().points().values().stream()
            .filter(p -> p.driver().orElse(null) instanceof PointDriver.Gpio)
            .map(PointSpec::id)
            .collect(Collectors.joining(", "));
    if (!gpio.isEmpty()) {
      LOG.warnf(
          "SEN-004 no GPIO driver in this process: commands for %s go to %s<id>",
          gpio, topics.root() + "commands/");
    }
  }
}
