package io.sentinel.config;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;

/** The {@link SentinelConfig} of this process, for code that is not a CDI bean. */
public final class Configuration {
  private Configuration() {}

  /**
   * The running application's mapping; on the command line's file commands, which never boot
   * Quarkus, the same sources (system properties, the environment, application.properties) read
   * through the mapping, so that its defaults are the only ones.
   */
  public static SentinelConfig current() {
    SmallRyeConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class);
    try {
      return config.getConfigMapping(SentinelConfig.class);
    } catch (NoSuchElementException notRegistered) {
      List<ConfigSource> sources = new ArrayList<>();
      config.getConfigSources().forEach(sources::add);
      return builder().withSources(sources).build().getConfigMapping(SentinelConfig.class);
    }
  }

  /**
   * A configuration with the mapping and Quarkus's duration syntax (30s, 1h), without Quarkus: add
   * the sources. Unknown {@code sentinel.*} keys are left alone (tests pass their own).
   */
  public static SmallRyeConfigBuilder builder() {
    return new SmallRyeConfigBuilder()
        .addDefaultInterceptors()
        .withConverter(Duration.class, 200, new DurationConverter())
        .withMapping(SentinelConfig.class)
        .withValidateUnknown(false);
  }
}
