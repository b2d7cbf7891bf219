package io.sentinel.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Registry;
import io.sentinel.site.RegistryLoader;
import io.sentinel.site.yaml.Problems;

/** A registry written as a site's points.yaml, so a test's points read like a site's. */
public final class YamlRegistry {
  private YamlRegistry() {}

  public static Registry of(String yaml) {
    Problems problems = new Problems();
    Registry registry = RegistryLoader.load("points.yaml", yaml, problems);
    assertThat(problems.sorted()).isEmpty();
    return registry;
  }
}
