package io.sentinel.site;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import io.sentinel.testing.FixtureLoader;
import io.sentinel.testing.SiteCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13: a key named twice is refused by the YAML door (YamlFile.parseAll), at any depth, in
 * every kind of file the gateway or the CLI reads, the open mappings ({@code inputs}, {@code
 * value_map}, a fixture's {@code set}) as much as the fixed ones: {@code YAML-014} naming the file,
 * the second key's line and the key. Each case duplicates one key of a real file of the repository,
 * so the file is valid without the duplicate (checked first).
 */
class DuplicateKeysTest {
  /** A text with one fragment replaced, and the line the fragment started on. */
  record Edited(String text, int line) {
    static Edited of(String text, String fragment, String replacement) {
      int at = text.indexOf(fragment);
      assertThat(at).as("fragment %s", fragment).isNotNegative();
      int line = 1 + (int) text.substring(0, at).chars().filter(c -> c == '\n').count();
      return new Edited(
          text.substring(0, at) + replacement + text.substring(at + fragment.length()), line);
    }

    /** The fragment (a whole line) written twice: the duplicate is on the line after it. */
    static Edited twice(String text, String line) {
      Edited e = of(text, line, line + line);
      return new Edited(e.text(), e.line() + 1);
    }
  }

  static void assertRefused(List<Problem> problems, String file, int line, String key) {
    assertThat(problems)
        .as("problems of %s", file)
        .anySatisfy(
            p -> {
              assertThat(p.code()).isEqualTo("YAML-014");
              assertThat(p.file()).isEqualTo(file);
              assertThat(p.line()).isEqualTo(line);
              assertThat(p.message()).contains("duplicate-key").contains("'" + key + "'");
              assertThat(p.isError()).isTrue();
            });
  }

  static final Site EXAMPLE = Site.load(Path.of(".")).site().orElseThrow();

  @Test
  void pointsYaml_aKeyInsideAPointsFlowMapping() {
    String text = Site.read(Path.of("seeds/points.yaml"));
    Problems clean = new Problems();
    RegistryLoader.load("points.yaml", text, clean);
    assertThat(clean.hasErrors()).isFalse();
    Edited e =
        Edited.of(text, "unit: degC, direction: in,", "unit: degC, unit: bar, direction: in,");
    Problems p = new Problems();
    RegistryLoader.load("points.yaml", e.text(), p);
    assertRefused(p.sorted(), "points.yaml", e.line(), "unit");
  }

  @Test
  void deviceMappings_aValueMapsKeyAndADriversMap() throws Exception {
    String text = Site.read(Path.of("src/test/resources/sites/devices/points.yaml"));
    Problems clean = new Problems();
    RegistryLoader.load("points.yaml", text, clean);
    assertThat(clean.hasErrors()).as(clean.sorted().toString()).isFalse();
    Edited valueMap =
        Edited.of(
            text,
            "value_map: { \"ON\": true, \"OFF\": false }",
            "value_map: { \"ON\": true, \"ON\": false }");
    Problems p = new Problems();
    RegistryLoader.load("points.yaml", valueMap.text(), p);
    assertRefused(p.sorted(), "points.yaml", valueMap.line(), "ON");
    Edited driverMap =
        Edited.of(
            text, "map: { true: \"ON\", false: \"OFF\" }", "map: { true: \"ON\", true: \"OFF\" }");
    Problems q = new Problems();
    RegistryLoader.load("points.yaml", driverMap.text(), q);
    assertRefused(q.sorted(), "points.yaml", driverMap.line(), "true");
  }

  @Test
  void derivedYaml() {
    String text = Site.read(Path.of("seeds/derived.yaml"));
    Edited e = Edited.of(text, "within: 5m }", "within: 5m, within: 1s }");
    Problems p = new Problems();
    DerivedLoader.load("derived.yaml", e.text(), EXAMPLE.basis().points(), p);
    assertRefused(p.sorted(), "derived.yaml", e.line(), "within");
  }

  @Test
  void nativeRuleFile_anInputNamedTwice_inTheOpenInputsMapping() {
    String text = Site.read(Path.of("rules/boiler.yaml"));
    Edited e = Edited.twice(text, "    flow: boiler.ch1.flow-temp\n");
    Problems p = new Problems();
    RuleLoader.load("rules/boiler.yaml", e.text(), EXAMPLE.basis().points(), p);
    assertRefused(p.sorted(), "rules/boiler.yaml", e.line(), "flow");
  }

  @Test
  void dslRuleFile() {
    Site dsl = Site.load(Path.of("src/test/resources/sites/dsl")).site().orElseThrow();
    String text = Site.read(Path.of("src/test/resources/sites/dsl/rules/zone.yaml"));
    Edited e = Edited.twice(text, "      equals: court.2\n");
    Problems p = new Problems();
    RuleLoader.load("rules/zone.yaml", e.text(), dsl.basis().points(), p);
    assertRefused(p.sorted(), "rules/zone.yaml", e.line(), "equals");
  }

  @Test
  void fixtureFile_aPointSetTwiceInOneStep() {
    String text = Site.read(Path.of("rules/tests/door.yaml"));
    Edited e =
        Edited.of(
            text,
            "set: { door.main.button: { value: true } }",
            "set: { door.main.button: { value: true }, door.main.button: { value: false } }");
    Problems p = new Problems();
    FixtureLoader.load("tests/door.yaml", e.text(), EXAMPLE.ruleSet(), p);
    assertRefused(p.sorted(), "tests/door.yaml", e.line(), "door.main.button");
  }

  @Test
  void siteYaml(@TempDir Path dir) throws Exception {
    SiteCopy.of(dir);
    String text = Site.read(Path.of("seeds/venue/site.yaml"));
    Edited e = Edited.twice(text, "timezone: Europe/London\n");
    Files.writeString(dir.resolve("site.yaml"), e.text().replace("name: venue", "name: example"));
    Site.Loaded loaded = Site.load(dir);
    assertThat(loaded.ok()).isFalse();
    assertRefused(loaded.problems(), "site.yaml", e.line(), "timezone");
  }

  @Test
  void keysYaml_aKeysFieldTwice() {
    String text = Site.read(Path.of("src/test/resources/revisions/keys.yaml"));
    Edited e = Edited.twice(text, "    review: true\n");
    Problems p = new Problems();
    RevisionKeys.load("keys.yaml", e.text(), p);
    assertRefused(p.sorted(), "keys.yaml", e.line(), "review");
  }

  @Test
  void pushedRevision_yamlAndJson() {
    String boiler = Site.read(Path.of("rules/boiler.yaml"));
    String doc = "revision: 7\nsite: example\nrules:\n" + boiler;
    assertThat(check(doc).valid()).isTrue();
    Edited yaml = Edited.twice(doc, "      expires_in: 20m\n");
    RevisionDocument.Checked c = check(yaml.text());
    assertThat(c.valid()).isFalse();
    assertRefused(c.problems(), "ruleset", yaml.line(), "expires_in");
    String json = "{\"revision\": 8, \"site\": \"example\",\n \"revision\": 9, \"rules\": []}";
    RevisionDocument.Checked j = check(json);
    assertThat(j.valid()).isFalse();
    assertRefused(j.problems(), "ruleset", 2, "revision");
  }

  @Test
  void theCli_validate_namesFileLineAndKey(@TempDir Path dir) throws Exception {
    SiteCopy.of(dir);
    Edited e =
        Edited.twice(Site.read(dir.resolve("rules/door.yaml")), "    button: door.main.button\n");
    Files.writeString(dir.resolve("rules/door.yaml"), e.text());
    CliRunner r = CliRunner.run("validate", dir.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.output())
        .contains("YAML-014")
        .contains("'button'")
        .contains("rules/door.yaml:" + e.line());
  }

  @Test
  void aDuplicateDeepInsideAListOfMappings_andEveryOneIsNamed() {
    String text = "a:\n  - b:\n      - c: 1\n        c: 2\n  - d: 1\n    d: 2\n";
    Problems p = new Problems();
    assertThat(new io.sentinel.site.yaml.YamlFile("f.yaml", p).parseAll(text)).isEmpty();
    assertRefused(p.sorted(), "f.yaml", 4, "c");
    assertRefused(p.sorted(), "f.yaml", 6, "d");
  }

  @Test
  void aDuplicateThroughAnAlias_isNamedOnce() {
    String text = "x: &m { k: 1, k: 2 }\ny: *m\nz: *m\n";
    Problems p = new Problems();
    assertThat(new io.sentinel.site.yaml.YamlFile("f.yaml", p).parseAll(text)).isEmpty();
    assertThat(p.sorted()).singleElement().satisfies(q -> assertThat(q.line()).isEqualTo(1));
  }

  private static RevisionDocument.Checked check(String text) {
    return RevisionDocument.check("ruleset", text, EXAMPLE.basis(), "example");
  }
}
