package io.sentinel.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.command.CommandSettings;
import io.sentinel.engine.EngineLimits;
import io.sentinel.store.JournalSettings;
import io.sentinel.store.StoreConfig;
import io.smallrye.config.SmallRyeConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is generated from {@link SentinelConfig}: it must be the one checked in,
 * name every key the mapping reads with the default the mapping applies, and those defaults must be
 * the core's own.
 *
 * <p>Regenerate: {@code ./mvnw -B test -Dtest=ConfigurationDocTest -Dconfiguration.update=true}.
 */
class ConfigurationDocTest {

  @Test
  void theCheckedInDocIsTheOneGeneratedFromTheMapping() throws IOException {
    String generated = ConfigurationDoc.markdown();
    if (Boolean.getBoolean("configuration.update")) {
      Files.writeString(ConfigurationDoc.DOC, generated, StandardCharsets.UTF_8);
    }
    String checkedIn =
        Files.exists(ConfigurationDoc.DOC)
            ? Files.readString(ConfigurationDoc.DOC, StandardCharsets.UTF_8)
            : "";
    assertThat(checkedIn)
        .as(
            ConfigurationDoc.DOC
                + " differs from what SentinelConfig generates (a key, default or javadoc"
                + " changed?); regenerate with: "
                + ConfigurationDoc.REGENERATE)
        .isEqualTo(generated);
  }

  @Test
  void everyDocumentedKey_isOneTheMappingReads_withTheDocumentedDefault() {
    SmallRyeConfig config = Configuration.builder().addSystemSources().build();
    List<ConfigurationDoc.Key> keys = ConfigurationDoc.keys();
    assertThat(keys).hasSizeGreaterThanOrEqualTo(30);
    for (ConfigurationDoc.Key k : keys) {
      assertThat(config.getConfigValue(k.name()).getRawValue())
          .as("the mapping's default of " + k.name())
          .isEqualTo(k.defaultValue().orElse(null));
    }
    assertThat(keys).extracting(ConfigurationDoc.Key::name).doesNotHaveDuplicates();
  }

  @Test
  void anEnvironmentVariable_isTheKeyInCapitals() {
    assertThat(
            new ConfigurationDoc.Key("sentinel.db.embedded.data-dir", "", null, "").environment())
        .isEqualTo("SENTINEL_DB_EMBEDDED_DATA_DIR");
  }

  @Test
  void theMappingsDefaults_areTheCoresDefaults_outsideTheRuntimeToo() {
    SentinelConfig config = Configuration.current();
    SentinelConfig.Limits l = config.limits();
    assertThat(
            new EngineLimits(
                l.evaluationsPerRule(),
                l.evaluationWindow(),
                l.claimChangesPerPoint(),
                l.claimWindow()))
        .isEqualTo(EngineLimits.DEFAULT);
    assertThat(
            new CommandSettings(
                config.command().interlockBound(), config.command().convergenceBound()))
        .isEqualTo(CommandSettings.DEFAULT);
    Path home = Path.of(System.getProperty("user.home"), ".sentinel");
    assertThat(config.home()).isEqualTo(home);
    StoreConfig store = StoreConfig.from(config);
    assertThat(store.journal()).isEqualTo(JournalSettings.defaults(home.resolve("journal")));
    assertThat(store.embeddedDataDir()).isEqualTo(home.resolve("pgdata"));
  }
}
