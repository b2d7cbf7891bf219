package io.sentinel.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * One definition of the edge JVM: ./sentinel, the systemd unit, Dockerfile.jvm (and so the compose
 * file) and the load generator take their JVM options from src/main/jvm/edge.options and set none
 * of their own; the unit and both images set the same gateway settings; the compose file runs that
 * image unchanged with the broker settings docs/runtime.md recommends.
 */
class DeploymentFilesTest {
  static final Path OPTIONS = Path.of("src/main/jvm/edge.options");
  static final Path UNIT = Path.of("src/main/systemd/sentinel.service");
  private static final Path JVM_IMAGE = Path.of("src/main/docker/Dockerfile.jvm");
  private static final Path NATIVE_IMAGE = Path.of("src/main/docker/Dockerfile.native");
  private static final Path COMPOSE = Path.of("src/main/docker/docker-compose.yml");
  private static final Pattern JVM_OPTION = Pattern.compile("(?<![\\w-])-(X[a-z]|XX:|D)\\S*");

  /** The argument file's options, as java reads them (a # starts a comment to the line's end). */
  static List<String> edgeOptions() throws IOException {
    return Files.readAllLines(OPTIONS).stream()
        .map(l -> l.replaceFirst("#.*", "").trim())
        .filter(l -> !l.isEmpty())
        .flatMap(l -> Arrays.stream(l.split("\\s+")))
        .toList();
  }

  @Test
  void edgeOptions_areJvmOptions_heapAndGcChosen() throws IOException {
    List<String> options = edgeOptions();
    assertThat(options).allMatch(o -> JVM_OPTION.matcher(o).matches(), "a JVM option");
    assertThat(options).anyMatch(o -> o.startsWith("-Xmx")).anyMatch(o -> o.endsWith("GC"));
  }

  @Test
  void unit_takesTheOptionsFromTheInstalledFile_andSetsNoneOfItsOwn() throws IOException {
    String exec = directives(UNIT).get("ExecStart");
    assertThat(exec).isEqualTo("/opt/sentinel/sentinel-java /opt/sentinel/quarkus-run.jar run");
    assertThat(jvmOptionsIn(exec)).isEmpty();
    assertThat(Files.readString(Path.of("src/main/dist/install.sh")))
        .contains("install -m 0644 \"$repo/src/main/jvm/edge.options\" \"$opt/edge.options\"")
        .contains("install -m 0755 \"$repo/src/main/jvm/sentinel-java\" \"$opt/sentinel-java\"");
  }

  /** Issue 15: systemd restarts a gateway that dies or whose engine stops feeding its watchdog. */
  @Test
  void unit_isTypeNotify_withAWatchdog_restartedAlways() throws IOException {
    Map<String, String> d = directives(UNIT);
    assertThat(d).containsEntry("Type", "notify").containsEntry("Restart", "always");
    assertThat(d.get("WatchdogSec")).matches("[1-9][0-9]*s");
    // NotifyAccess=main (the default) accepts the gateway's own datagrams, and no other's.
    assertThat(d).doesNotContainKey("NotifyAccess");
  }

  @Test
  void jvmImage_copiesTheFile_andItsEntrypointReadsIt() throws IOException {
    String image = Files.readString(JVM_IMAGE);
    assertThat(image)
        .contains("COPY --chown=185 src/main/jvm/edge.options /deployments/edge.options")
        .contains("COPY --chown=185 src/main/jvm/sentinel-java /deployments/sentinel-java");
    String entrypoint = instruction(image, "ENTRYPOINT");
    assertThat(entrypoint)
        .isEqualTo("ENTRYPOINT [\"/deployments/sentinel-java\", \"/deployments/quarkus-run.jar\"]");
    assertThat(jvmOptionsIn(entrypoint)).isEmpty();
  }

  @Test
  void commandLineAndLoadGenerator_readTheFile() throws IOException {
    assertThat(Files.readString(Path.of("sentinel")))
        .contains("exec \"$here/src/main/jvm/sentinel-java\" \"$jar\" \"$@\"");
    // The launcher reads the options file beside it, then SENTINEL_JAVA_OPTS, and sets none itself
    // but the class-data archive's.
    String launcher = Files.readString(Path.of("src/main/jvm/sentinel-java"));
    assertThat(launcher)
        .contains("options=${SENTINEL_EDGE_OPTIONS:-$here/edge.options}")
        .contains(
            "exec \"$java\" @\"$options\" \"${cds[@]}\" ${SENTINEL_JAVA_OPTS:-} -jar \"$jar\" \"$@\"");
    assertThat(Files.readString(Path.of("src/load/java/io/sentinel/load/LoadGenerator.java")))
        .contains("\"@\" + Path.of(\"src/main/jvm/edge.options\")");
  }

  @Test
  void unitAndImages_setTheSameSettings_volumesPortAndHealthCheck() throws IOException {
    Map<String, String> unitEnv = new LinkedHashMap<>();
    for (String line : Files.readAllLines(UNIT)) {
      if (line.startsWith("Environment=")) {
        String[] kv = line.substring("Environment=".length()).split("=", 2);
        unitEnv.put(kv[0], kv[1]);
      }
    }
    for (Path image : List.of(JVM_IMAGE, NATIVE_IMAGE)) {
      String text = Files.readString(image);
      Map<String, String> env =
          text.lines()
              .filter(l -> l.startsWith("ENV SENTINEL_"))
              .map(l -> l.substring(4).split("=", 2))
              .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
      assertThat(env.keySet()).as(image.toString()).isEqualTo(unitEnv.keySet());
      assertThat(env)
          .containsEntry("SENTINEL_SITE_DIR", "/site")
          .containsEntry("SENTINEL_HOME", "/data");
      assertThat(text).contains("VOLUME [\"/site\", \"/data\"]").contains("EXPOSE 8080");
      assertThat(instruction(text, "HEALTHCHECK")).contains("/q/health/ready").contains(" 200 ");
    }
    assertThat(unitEnv).containsEntry("SENTINEL_HOME", "/var/lib/sentinel");
    assertThat(directives(UNIT)).containsEntry("ReadWritePaths", "/var/lib/sentinel");
  }

  @Test
  @SuppressWarnings("unchecked")
  void compose_runsTheJvmImageUnchanged_siteAndDataMounted_brokerAsRecommended()
      throws IOException {
    Map<String, Object> compose =
        (Map<String, Object>)
            new Load(LoadSettings.builder().build()).loadFromString(Files.readString(COMPOSE));
    Map<String, Object> services = (Map<String, Object>) compose.get("services");
    assertThat(services).containsKeys("sentinel", "mosquitto", "postgres");
    Map<String, Object> gateway = (Map<String, Object>) services.get("sentinel");
    Map<String, Object> build = (Map<String, Object>) gateway.get("build");
    assertThat(
            COMPOSE
                .getParent()
                .resolve((String) build.get("context"))
                .resolve((String) build.get("dockerfile"))
                .normalize())
        .isEqualTo(JVM_IMAGE);
    assertThat(gateway).doesNotContainKeys("entrypoint", "command");
    Map<String, Object> env = (Map<String, Object>) gateway.get("environment");
    assertThat(env)
        .doesNotContainKeys(
            "SENTINEL_JAVA_OPTS",
            "JAVA_TOOL_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "SENTINEL_HOME",
            "SENTINEL_SITE_DIR")
        .containsKeys("SENTINEL_MQTT_URL", "SENTINEL_DB_URL");
    assertThat((List<String>) gateway.get("volumes"))
        .anyMatch(v -> v.endsWith(":/site:ro"))
        .anyMatch(v -> v.endsWith(":/data"));

    Map<String, Object> broker = (Map<String, Object>) services.get("mosquitto");
    assertThat((List<String>) broker.get("volumes"))
        .contains("./mosquitto.conf:/mosquitto/config/mosquitto.conf:ro");
    String conf = Files.readString(COMPOSE.getParent().resolve("mosquitto.conf"));
    String runtime = Files.readString(Path.of("docs/runtime.md"));
    for (String key : List.of("max_inflight_messages", "max_queued_messages")) {
      Matcher recommended = Pattern.compile("(?m)^" + key + " (\\d+)$").matcher(runtime);
      assertThat(recommended.find()).as(key + " in docs/runtime.md").isTrue();
      assertThat(conf).containsPattern("(?m)^" + key + " " + recommended.group(1) + "$");
    }
  }

  private static List<String> jvmOptionsIn(String text) {
    return JVM_OPTION.matcher(text).results().map(m -> m.group()).toList();
  }

  /** A unit's directives, the last of each name. */
  static Map<String, String> directives(Path unit) throws IOException {
    Map<String, String> d = new LinkedHashMap<>();
    for (String line : Files.readAllLines(unit)) {
      int eq = line.indexOf('=');
      if (!line.startsWith("#") && eq > 0) {
        d.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return d;
  }

  /** A Dockerfile instruction with its continuation lines joined. */
  private static String instruction(String dockerfile, String name) {
    String joined = dockerfile.replace("\\\n", " ");
    return joined.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
  }
}
