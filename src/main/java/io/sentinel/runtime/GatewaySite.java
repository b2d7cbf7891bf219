package io.sentinel.runtime;

import io.sentinel.mqtt.IngestDecoder;
import io.sentinel.mqtt.Topics;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSpec;
import io.sentinel.rule.Problem;
import io.sentinel.rule.Problems;
import io.sentinel.rule.RevisionKeys;
import io.sentinel.rule.Site;
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
  static IngestDecoder decoder(Site site, Topics topics, int maxPayloadBytes, Path dir) {
    List<IngestDecoder.SourceProblem> problems = new ArrayList<>();
    IngestDecoder decoder =
        IngestDecoder.of(site.basis().points(), topics, maxPayloadBytes, problems);
    if (!problems.isEmpty()) {
      problems.forEach(
          p ->
              LOG.errorf(
                  "%s: error [SRC-001] %s: %s", p.spec().where(), p.spec().id(), p.message()));
      throw new IllegalStateException(
          "SEN-001 site " + dir + " has errors; the gateway does not start on it");
    }
    return decoder;
  }

  /**
   * The keys signed revisions must carry: {@code sentinel.ruleset.keys-file}, else {@code
   * keys.yaml} in the site folder. Without either, unsigned revisions are accepted, and the log
   * says so. A keys file with an error stops the start: trusting fewer keys than configured would
   * be a surprise.
   */
  static Optional<RevisionKeys> trustedKeys(Optional<Path> keysFile, Site site, Topics topics) {
    Optional<Path> file =
        keysFile
            .filter(f -> !f.toString().isBlank())
            .or(() -> Optional.of(site.dir().resolve("keys.yaml")).filter(Files::exists));
    if (file.isEmpty()) {
      LOG.warnf(
          "SEN-030 no trusted keys (sentinel.ruleset.keys-file, or keys.yaml in the site folder):"
              + " UNSIGNED rule-set revisions on %s are accepted",
          topics.ruleset());
      return Optional.empty();
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
          "SEN-034 the trusted keys in " + file.get() + " have errors, listed above");
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
