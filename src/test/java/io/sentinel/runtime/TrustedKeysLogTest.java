package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.testing.SiteCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: what a start says about revisions. Without keys and without {@code
 * allow_unsigned_revisions} (the example site as shipped) every push is refused, said once ({@code
 * SEN-029}); a site that allows unsigned revisions is warned at every start ({@code SEN-030}); with
 * keys, how many and how many may review ({@code SEN-031}).
 */
class TrustedKeysLogTest {
  private static final Topics TOPICS = new Topics("keys-log");

  private static String startLine(Optional<Path> keysFile, Site site) {
    try (LogCapture log = LogCapture.gateway()) {
      GatewaySite.trustedKeys(keysFile, site, TOPICS);
      return log.lines().stream()
          .filter(l -> l.matches("SEN-0(29|30|31) .*"))
          .reduce((a, b) -> a + "\n" + b)
          .orElse("");
    }
  }

  @Test
  void theExampleSiteAsShipped_rejectsEveryPush_andSaysHowToSetUpKeys() {
    Site example = Site.load(Path.of(".")).site().orElseThrow();
    assertThat(startLine(Optional.empty(), example))
        .startsWith("SEN-029 no trusted keys")
        .contains("every rule-set revision pushed on sentinel/keys-log/ruleset is rejected")
        .contains("sentinel keygen", "allow_unsigned_revisions: true");
  }

  @Test
  void aSiteThatAllowsUnsignedRevisions_isWarnedAtStart(@TempDir Path dir) throws Exception {
    SiteCopy.of(dir);
    Files.writeString(
        dir.resolve("site.yaml"),
        Files.readString(Path.of("seeds/site.yaml")) + "allow_unsigned_revisions: true\n");
    Site unsigned = Site.load(dir).site().orElseThrow();
    assertThat(startLine(Optional.empty(), unsigned))
        .startsWith("SEN-030 ")
        .contains("UNSIGNED rule-set revisions on sentinel/keys-log/ruleset are accepted")
        .contains("a change to an interlock or safety rule is rejected");
  }

  @Test
  void withKeys_howManyAndHowManyMayReview() {
    Site example = Site.load(Path.of(".")).site().orElseThrow();
    assertThat(startLine(Optional.of(Path.of("src/test/resources/revisions/keys.yaml")), example))
        .startsWith("SEN-031 ")
        .contains("one of 2 trusted keys", "(1 for review of interlock and safety rules)");
  }
}
