package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.config.Configuration;
import io.sentinel.config.SentinelConfig;
import io.sentinel.site.revision.RevisionKeys;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: the chain's head is anchored "at every N records and at least every minute", with the
 * gateway's defaults (1000 records, 60 s) read from the configuration's own mapping.
 */
class AnchorCadenceTest {
  private static final KeyPair KEY = RevisionKeys.generate();
  private static final Instant T0 = Instant.parse("2026-12-01T14:00:00Z");
  private static final SentinelConfig.Audit DEFAULTS =
      Configuration.builder()
          .addSystemSources()
          .build()
          .getConfigMapping(SentinelConfig.class)
          .audit();
  private static final AnchorCadence CADENCE =
      new AnchorCadence(DEFAULTS.anchorRecords(), DEFAULTS.anchorInterval());

  private static Optional<AuditAnchor> anchoredAt(long seq, Instant at) {
    return Optional.of(
        AuditAnchor.sign("example", seq, "ab".repeat(32), at, KEY.getPrivate(), KEY.getPublic()));
  }

  @Test
  void theDefaults_areEvery1000Records_andAtLeastEveryMinute() {
    assertThat(CADENCE).isEqualTo(new AnchorCadence(1000, Duration.ofMinutes(1)));
  }

  @Test
  void theFirstHeadSeen_isAnchoredAtOnce() {
    assertThat(CADENCE.due(Optional.empty(), 1, T0, false)).isTrue();
  }

  @Test
  void everyNRecords_anAnchor_beforeTheMinuteIsOut() {
    Optional<AuditAnchor> last = anchoredAt(5000, T0);
    Instant soon = T0.plusSeconds(1);
    assertThat(CADENCE.due(last, 5999, soon, false)).as("999 records on").isFalse();
    assertThat(CADENCE.due(last, 6000, soon, false)).as("1000 records on").isTrue();
    assertThat(CADENCE.due(last, 9000, soon, false)).as("a burst past N").isTrue();
  }

  @Test
  void atLeastEveryMinute_anAnchor_withFewRecordsOrNone() {
    Optional<AuditAnchor> last = anchoredAt(5000, T0);
    assertThat(CADENCE.due(last, 5001, T0.plusSeconds(59), false)).isFalse();
    assertThat(CADENCE.due(last, 5001, T0.plusSeconds(60), false)).as("one record").isTrue();
    assertThat(CADENCE.due(last, 5000, T0.plusSeconds(59), false)).isFalse();
    assertThat(CADENCE.due(last, 5000, T0.plusSeconds(60), false)).as("none").isTrue();
  }

  @Test
  void aCleanStop_anchorsWhatTheLastAnchorDoesNotCover_only() {
    Optional<AuditAnchor> last = anchoredAt(5000, T0);
    assertThat(CADENCE.due(last, 5001, T0.plusSeconds(1), true)).isTrue();
    assertThat(CADENCE.due(last, 5000, T0.plusSeconds(1), true)).isFalse();
  }
}
