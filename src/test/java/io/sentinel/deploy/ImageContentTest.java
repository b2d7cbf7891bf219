package io.sentinel.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.rule.Rule;
import io.sentinel.site.Site;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the images hold, checked without a Docker daemon (none on these machines): every file they
 * COPY passes .dockerignore, the example site they carry for a run with nothing mounted at /site
 * loads as the repository's, and they run as a user other than root (docs/deployment.md).
 */
class ImageContentTest {
  private static final List<Path> IMAGES =
      List.of(
          Path.of("src/main/docker/Dockerfile.jvm"), Path.of("src/main/docker/Dockerfile.native"));
  private static final Pattern COPY = Pattern.compile("(?m)^COPY (?:--\\S+ )*(\\S+) (\\S+)$");

  @Test
  void everyCopiedFile_passesTheDockerignore() throws IOException {
    List<String> allowed =
        Files.readAllLines(Path.of(".dockerignore")).stream()
            .filter(l -> l.startsWith("!"))
            .map(l -> l.substring(1).replaceAll("/$", ""))
            .toList();
    assertThat(Files.readAllLines(Path.of(".dockerignore"))).contains("*");
    for (Path image : IMAGES) {
      for (String source : sources(image)) {
        String s = source.replaceAll("/$", "");
        assertThat(allowed)
            .as(image + ": COPY " + source)
            .anyMatch(a -> glob(a).matches(Path.of(s)) || s.startsWith(a + "/"));
      }
    }
  }

  @Test
  void theExampleSiteTheImagesCarry_loadsAsTheRepositorysSite(@TempDir Path dir)
      throws IOException {
    Site repository = Site.load(Path.of(".")).site().orElseThrow();
    for (Path image : IMAGES) {
      Path site = dir.resolve(image.getFileName().toString());
      Matcher m = COPY.matcher(Files.readString(image));
      while (m.find()) {
        if (m.group(2).startsWith("/site/")) {
          copyTree(Path.of(m.group(1)), site.resolve(m.group(2).substring("/site/".length())));
        }
      }
      Site.Loaded copied = Site.load(site);
      assertThat(copied.problems())
          .as(image.toString())
          .isEqualTo(Site.load(Path.of(".")).problems());
      Site s = copied.site().orElseThrow();
      assertThat(s.name()).isEqualTo(repository.name());
      assertThat(s.ruleSet().rules().stream().map(Rule::id))
          .as(image.toString())
          .containsExactlyElementsOf(repository.ruleSet().rules().stream().map(Rule::id).toList());
      assertThat(s.ruleSet().registry().points().size())
          .isEqualTo(repository.ruleSet().registry().points().size());
    }
  }

  @Test
  void theImagesRunAsAUserOtherThanRoot() throws IOException {
    for (Path image : IMAGES) {
      List<String> users =
          Files.readAllLines(image).stream()
              .filter(l -> l.startsWith("USER "))
              .map(l -> l.substring(5).trim())
              .toList();
      assertThat(users).as(image.toString()).isNotEmpty();
      assertThat(users.get(users.size() - 1))
          .as(image + ": the last USER")
          .matches("[1-9][0-9]*(:[0-9]+)?");
    }
  }

  private static List<String> sources(Path image) throws IOException {
    List<String> out = new ArrayList<>();
    Matcher m = COPY.matcher(Files.readString(image));
    while (m.find()) {
      out.add(m.group(1));
    }
    assertThat(out).as(image + " copies something").isNotEmpty();
    return out;
  }

  private static PathMatcher glob(String pattern) {
    return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(f, target);
        }
      }
    }
  }
}
