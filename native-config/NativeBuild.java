import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs GraalVM's native-image builder ({@code NativeImageGeneratorRunner}, from Maven Central) on
 * what Quarkus's sources-only native build wrote to {@code target/native-sources}: it does the part
 * of the {@code native-image} driver that no artifact on Maven Central ships. It reads every
 * class-path entry's {@code META-INF/native-image} files (honouring Quarkus's
 * {@code --exclude-config}), turns the driver's API options ({@code --initialize-at-run-time} ...)
 * into the builder's hosted options, and starts the builder on the Temurin 25 JDK with JVMCI.
 *
 * <p>Usage (native-config/build.sh runs it): {@code java NativeBuild.java SOURCES BUILDER_LIB
 * CLIB_DIR OUT [builder options...]}. An option it does not know stops it with the option's name
 * and origin, so that a new library's native-image.properties is never silently dropped.
 */
public class NativeBuild {

  record ConfigKind(String file, String option) {}

  static final List<ConfigKind> CONFIG_FILES =
      List.of(
          new ConfigKind("reflect-config.json", "ReflectionConfigurationResources"),
          new ConfigKind("resource-config.json", "ResourceConfigurationResources"),
          new ConfigKind("jni-config.json", "JNIConfigurationResources"),
          new ConfigKind("proxy-config.json", "DynamicProxyConfigurationResources"),
          new ConfigKind("serialization-config.json", "SerializationConfigurationResources"),
          new ConfigKind(
              "predefined-classes-config.json", "PredefinedClassesConfigurationResources"),
          new ConfigKind("reachability-metadata.json", "ReachabilityMetadataResources"));

  /** The JDK modules whose internals the builder reaches into (the driver opens them too). */
  static final List<String> JDK_MODULES =
      List.of(
          "java.base",
          "jdk.internal.vm.ci",
          "jdk.management",
          "java.management",
          "jdk.jfr",
          "jdk.internal.jvmstat",
          "jdk.unsupported",
          "java.security.jgss");

  record Exclude(String jarRegex, String resourceRegex) {}

  final List<String> jvmArgs = new ArrayList<>();
  final List<String> hostedArgs = new ArrayList<>();
  final List<Exclude> excludes = new ArrayList<>();
  final Set<String> configResources = new LinkedHashSet<>();

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: NativeBuild SOURCES BUILDER_LIB CLIB_DIR OUT [builder options...]");
      System.exit(2);
    }
    Path sources = Path.of(args[0]).toAbsolutePath();
    Path builderLib = Path.of(args[1]).toAbsolutePath();
    Path clib = Path.of(args[2]).toAbsolutePath();
    Path out = Path.of(args[3]).toAbsolutePath();
    List<String> extra = List.of(args).subList(4, args.length);
    System.exit(new NativeBuild().run(sources, builderLib, clib, out, extra));
  }

  int run(Path sources, Path builderLib, Path clib, Path out, List<String> extra)
      throws Exception {
    List<String> tokens =
        List.of(Files.readString(sources.resolve("native-image.args")).trim().split("\\s+"));
    String jar = null;
    String imageName = null;
    for (int i = 0; i < tokens.size(); i++) {
      String t = tokens.get(i);
      if (t.equals("-jar")) {
        jar = tokens.get(++i);
      } else if (t.equals("--exclude-config")) {
        excludes.add(new Exclude(tokens.get(i + 1), tokens.get(i + 2)));
        i += 2;
      } else if (!t.startsWith("-")) {
        imageName = t;
      } else {
        option(t, "native-image.args");
      }
    }
    if (jar == null || imageName == null) {
      throw new IllegalStateException("native-image.args names no -jar or no image name");
    }
    Path runner = sources.resolve(jar);
    List<Path> classPath = new ArrayList<>();
    classPath.add(runner);
    String mainClass;
    try (JarFile jf = new JarFile(runner.toFile())) {
      Manifest mf = jf.getManifest();
      mainClass = mf.getMainAttributes().getValue("Main-Class");
      // The driver honours a -jar's Add-Opens and Add-Exports as the java launcher does.
      for (String kind : List.of("Add-Opens", "Add-Exports")) {
        String packages = mf.getMainAttributes().getValue(kind);
        for (String pkg : words(packages == null ? "" : packages)) {
          jvmArgs.add("--" + kind.toLowerCase() + "=" + pkg + "=ALL-UNNAMED");
        }
      }
      for (String entry : mf.getMainAttributes().getValue("Class-Path").trim().split("\\s+")) {
        classPath.add(sources.resolve(entry));
      }
    }
    for (Path entry : classPath) {
      readMetaInf(entry);
    }
    for (String resource : configResources) {
      String name = resource.substring(resource.lastIndexOf('/') + 1);
      for (ConfigKind kind : CONFIG_FILES) {
        if (kind.file().equals(name)) {
          hostedArgs.add("-H:" + kind.option() + "=" + resource);
        }
      }
    }

    Files.createDirectories(out);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(builderJvm(builderLib));
    command.addAll(jvmArgs);
    command.add("-m");
    command.add("org.graalvm.nativeimage.builder/com.oracle.svm.hosted.NativeImageGeneratorRunner");
    command.add("-imagecp");
    command.add(classPath.stream().map(Path::toString).collect(Collectors.joining(":")));
    command.add("-H:Path=" + out);
    command.add("-H:Name=" + imageName);
    command.add("-H:Class=" + mainClass);
    command.add("-H:ImageBuildID=" + UUID.randomUUID());
    command.add("-H:CLibraryPath=" + clib);
    command.addAll(hostedArgs);
    command.addAll(extra);
    Files.write(out.resolve("builder-command.txt"), command);
    System.out.println("native-build: builder command in " + out.resolve("builder-command.txt"));
    return new ProcessBuilder(command).directory(out.toFile()).inheritIO().start().waitFor();
  }

  /** The JVM options the driver would give the builder: JVMCI, the Graal compiler, exports. */
  static List<String> builderJvm(Path builderLib) throws IOException {
    List<Path> jars;
    try (Stream<Path> s = Files.list(builderLib)) {
      jars = s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    }
    Path compiler =
        jars.stream()
            .filter(p -> p.getFileName().toString().startsWith("compiler-"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no compiler-*.jar in " + builderLib));
    List<Path> modulePath = jars.stream().filter(p -> !p.equals(compiler)).toList();
    List<String> builderModules = new ArrayList<>();
    for (Path jar : jars) {
      ModuleFinder.of(jar).findAll().forEach(m -> builderModules.add(m.descriptor().name()));
    }
    String targets = String.join(",", builderModules);
    List<String> jvm = new ArrayList<>();
    jvm.add("-XX:+UnlockExperimentalVMOptions");
    jvm.add("-XX:+EnableJVMCI");
    jvm.add("-XX:-UseJVMCICompiler");
    jvm.add("-XX:-OmitStackTraceInFastThrow");
    jvm.add("--upgrade-module-path");
    jvm.add(compiler.toString());
    jvm.add("--module-path");
    jvm.add(modulePath.stream().map(Path::toString).collect(Collectors.joining(":")));
    jvm.add("--add-modules");
    jvm.add("ALL-DEFAULT");
    jvm.add("--enable-native-access=org.graalvm.nativeimage.builder");
    for (String module : JDK_MODULES) {
      ModuleReference ref = ModuleFinder.ofSystem().find(module).orElse(null);
      if (ref == null) {
        continue;
      }
      for (String pkg : new java.util.TreeSet<>(ref.descriptor().packages())) {
        jvm.add("--add-exports=" + module + "/" + pkg + "=" + targets);
      }
    }
    for (String pkg : List.of("java.lang", "java.lang.reflect", "jdk.internal.reflect")) {
      jvm.add("--add-opens=java.base/" + pkg + "=" + targets);
    }
    jvm.add("-Djava.system.class.loader=com.oracle.svm.hosted.NativeImageSystemClassLoader");
    jvm.add("-Dcom.oracle.graalvm.isaot=true");
    jvm.add("-Dorg.graalvm.nativeimage.imagecode=buildtime");
    jvm.add("-Djdk.internal.lambda.disableEagerInitialization=true");
    jvm.add("-Dsvm.platform=org.graalvm.nativeimage.Platform$LINUX_AMD64");
    // The driver sets it from a GraalVM's release file; Quarkus's features read it.
    String svm = compiler.getFileName().toString().replaceAll("^compiler-|\\.jar$", "");
    jvm.add(
        "-Dorg.graalvm.vendorversion=GraalVM CE "
            + svm
            + "+"
            + Runtime.version().build().orElse(0)
            + ".1");
    String xmx = System.getenv("NATIVE_BUILDER_XMX");
    if (xmx != null && !xmx.isBlank()) {
      jvm.add("-Xmx" + xmx);
    }
    return jvm;
  }

  void readMetaInf(Path entry) throws IOException {
    if (!Files.isRegularFile(entry)) {
      return;
    }
    try (JarFile jf = new JarFile(entry.toFile())) {
      for (var e : java.util.Collections.list(jf.entries())) {
        String name = e.getName();
        if (!name.startsWith("META-INF/native-image/") || e.isDirectory() || excluded(entry, name)) {
          continue;
        }
        if (name.endsWith("/native-image.properties")) {
          Properties p = new Properties();
          try (InputStream in = jf.getInputStream(e)) {
            p.load(in);
          }
          String origin = entry.getFileName() + "!/" + name;
          for (String t : words(p.getProperty("Args", ""))) {
            option(t, origin);
          }
          for (String t : words(p.getProperty("JavaArgs", ""))) {
            jvmArgs.add(t);
          }
        } else if (CONFIG_FILES.stream().anyMatch(k -> name.endsWith("/" + k.file()))
            || CONFIG_FILES.stream().anyMatch(k -> name.equals("META-INF/native-image/" + k.file()))) {
          configResources.add(name);
        }
      }
    }
  }

  boolean excluded(Path jar, String resource) {
    return excludes.stream()
        .anyMatch(
            x ->
                jar.toString().matches(".*" + x.jarRegex() + ".*")
                    && ("/" + resource).matches(x.resourceRegex()));
  }

  static List<String> words(String s) {
    return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }

  /** One driver option, as the driver's API option table would pass it to the builder. */
  void option(String t, String origin) {
    String name = t.contains("=") ? t.substring(0, t.indexOf('=')) : t;
    String value = t.contains("=") ? t.substring(t.indexOf('=') + 1) : "";
    switch (name) {
      case "--initialize-at-run-time" -> hostedArgs.add(initialization(value, "run_time"));
      case "--initialize-at-build-time" -> hostedArgs.add(initialization(value, "build_time"));
      case "--features" -> hostedArgs.add("-H:Features=" + value);
      case "--no-fallback" -> hostedArgs.add("-H:FallbackThreshold=0");
      case "--link-at-build-time" -> hostedArgs.add("-H:LinkAtBuildTime=" + value);
      case "--enable-url-protocols" -> hostedArgs.add("-H:EnableURLProtocols=" + value);
      case "--enable-http" -> hostedArgs.add("-H:EnableURLProtocols=http");
      case "--enable-https" -> hostedArgs.add("-H:EnableURLProtocols=https");
      case "--enable-monitoring" ->
          hostedArgs.add("-H:EnableMonitoringFeatures=" + (value.isEmpty() ? "all" : value));
      case "--enable-native-access" -> hostedArgs.add("-H:EnableNativeAccess=" + value);
      case "--enable-all-security-services" -> hostedArgs.add("-H:+EnableAllSecurityServices");
      case "--allow-incomplete-classpath", "--report-unsupported-elements-at-runtime" -> {
        // Deprecated, and the builder's default behaviour now.
      }
      default -> {
        if (t.startsWith("-J")) {
          jvmArgs.add(t.substring(2));
        } else if (t.startsWith("-H:") || t.startsWith("-R:")) {
          hostedArgs.add(t);
        } else if (t.startsWith("-D")) {
          jvmArgs.add(t);
        } else if (t.startsWith("--add-exports") || t.startsWith("--add-opens")) {
          jvmArgs.add(t);
        } else {
          throw new IllegalArgumentException(
              "native-build: unknown native-image option " + t + " (from " + origin + ")");
        }
      }
    }
  }

  static String initialization(String value, String when) {
    if (value.isEmpty()) {
      return "-H:ClassInitialization=:" + when;
    }
    return "-H:ClassInitialization="
        + Stream.of(value.split(","))
            .filter(s -> !s.isBlank())
            .map(s -> s + ":" + when)
            .collect(Collectors.joining(","));
  }
}
