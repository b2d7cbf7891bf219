package io.sentinel.site.yaml;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.sentinel.site.RegistryLoader;
import io.sentinel.site.Site;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The JSON Schema of {@code rules/schema/} is generated from {@link DocumentShapes}, the keys the
 * loaders take: it must be the one checked in, the example files must name it and pass it, and it
 * must refuse what the loaders refuse for their shape.
 *
 * <p>Regenerate: {@code ./mvnw -B test -Dtest=SchemaTest -Dschema.update=true}.
 */
class SchemaTest {
  static final Path SCHEMA_DIR = Path.of("rules/schema");
  private static final String REGENERATE = "./mvnw -B test -Dtest=SchemaTest -Dschema.update=true";
  private static final Pattern MODELINE =
      Pattern.compile("^# yaml-language-server: \\$schema=(\\S+)$", Pattern.MULTILINE);
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theCheckedInSchemaIsTheOneGeneratedFromTheLoadersShapes() throws IOException {
    Map<String, String> generated = SchemaWriter.all();
    if (Boolean.getBoolean("schema.update")) {
      Files.createDirectories(SCHEMA_DIR);
      for (Map.Entry<String, String> e : generated.entrySet()) {
        Files.writeString(SCHEMA_DIR.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
      }
    }
    List<String> stale = new ArrayList<>();
    for (Map.Entry<String, String> e : generated.entrySet()) {
      Path file = SCHEMA_DIR.resolve(e.getKey());
      if (!Files.exists(file)
          || !Files.readString(file, StandardCharsets.UTF_8).equals(e.getValue())) {
        stale.add(file.toString());
      }
    }
    try (Stream<Path> files = Files.list(SCHEMA_DIR)) {
      files
          .filter(f -> !generated.containsKey(f.getFileName().toString()))
          .forEach(f -> stale.add(f + " (no longer generated: delete it)"));
    }
    assertThat(stale)
        .as(
            "rules/schema/ differs from what DocumentShapes generates (a loader's keys changed?);"
                + " regenerate with: "
                + REGENERATE)
        .isEmpty();
  }

  @Test
  void everyExampleFileNamesItsSchema_andPassesIt() throws IOException {
    List<Path> examples = new ArrayList<>();
    examples.addAll(Site.yamlFiles(Path.of("rules")));
    examples.addAll(Site.yamlFiles(Path.of("seeds")));
    examples.addAll(Site.yamlFiles(Path.of("seeds/venue")));
    examples.addAll(Site.yamlFiles(Path.of("seeds/venue/rules")));
    assertThat(examples).hasSizeGreaterThanOrEqualTo(9);
    for (Path file : examples) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      Matcher m = MODELINE.matcher(text);
      assertThat(m.find()).as(file + " has no '# yaml-language-server: $schema=' line").isTrue();
      Path schema = file.getParent().resolve(m.group(1)).normalize();
      assertThat(schema).as(file + " names a schema that does not exist").exists();
      assertThat(problems(Files.readString(schema, StandardCharsets.UTF_8), text))
          .as(file + " against " + schema)
          .isEmpty();
    }
  }

  @Test
  void theExampleSitesStillLoadWithTheirSchemaLines() {
    assertThat(Site.load(Path.of(".")).problems()).noneMatch(Problem::isError);
    assertThat(Site.load(Path.of("seeds/venue")).problems()).noneMatch(Problem::isError);
  }

  /** What the loaders refuse for its shape (a key, a missing key, a word), the schema refuses. */
  @Test
  void theSchemaRefusesWhatTheLoadersRefuse() throws IOException {
    String rule =
        "- id: r\n"
            + "  band: automation\n"
            + "  inputs: { d: boiler.ch1.demand }\n"
            + "  when: d.value\n"
            + "  claims: [ { point: boiler.ch1.pump, value: true } ]\n"
            + "  on_input_loss: release\n"
            + "  warmup: all_inputs_live\n";
    String rules = SchemaWriter.all().get("rules.schema.json");
    assertThat(problems(rules, rule)).isEmpty();
    assertThat(loaderErrors(rule)).isEmpty();
    Map<String, String> bad =
        Map.of(
            "an unknown key",
            rule + "  colour: red\n",
            "a missing warmup",
            rule.replace("  warmup: all_inputs_live\n", ""),
            "an unknown band",
            rule.replace("band: automation", "band: urgent"),
            "a bad duration",
            rule.replace("value: true }", "value: true, expires_in: soon }"),
            "an unknown trigger key",
            rule + "  trigger: { on: interval, every: 5m, of: d }\n",
            "an action without cooldown",
            rule + "  actions: [ { kind: notify, channel: ops, message: hi } ]\n");
    for (Map.Entry<String, String> e : bad.entrySet()) {
      assertThat(problems(rules, e.getValue())).as("schema on " + e.getKey()).isNotEmpty();
      assertThat(loaderErrors(e.getValue())).as("loader on " + e.getKey()).isNotEmpty();
    }
    String points = SchemaWriter.all().get("points.schema.json");
    String twoSources =
        "points:\n  a.b: { type: bool, direction: in, source: { gpio: { pin: 4 }, mqtt: { topic: t } } }\n";
    assertThat(problems(points, twoSources)).isNotEmpty();
    Problems p = new Problems();
    RegistryLoader.load("points.yaml", twoSources, p);
    assertThat(p.hasErrors()).isTrue();
  }

  private static List<Problem> loaderErrors(String text) {
    Site site = Site.load(Path.of(".")).site().orElseThrow();
    return site.checkRules("r.yaml", text).problems().stream().filter(Problem::isError).toList();
  }

  /** The documents of a YAML text (YAML 1.2, as the loaders read it) checked against a schema. */
  static List<String> problems(String schemaText, String yaml) throws IOException {
    JsonSchema schema =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
            .getSchema(JSON.readTree(schemaText));
    List<String> out = new ArrayList<>();
    for (Object doc : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
      JsonNode node = JSON.valueToTree(doc);
      Set<ValidationMessage> messages = schema.validate(node);
      messages.forEach(m -> out.add(m.getMessage()));
    }
    return out;
  }
}
