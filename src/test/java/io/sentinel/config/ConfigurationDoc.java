package io.sentinel.config;

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * docs/configuration.md, written from {@link SentinelConfig}'s source: its methods in their order,
 * their {@code @WithDefault}, the first sentence of their javadoc. The source is read with the
 * JDK's own parser (the javadoc is not in the class file).
 */
final class ConfigurationDoc {
  static final Path SOURCE = Path.of("src/main/java/io/sentinel/config/SentinelConfig.java");
  static final Path DOC = Path.of("docs/configuration.md");
  static final String REGENERATE =
      "./mvnw -B test -Dtest=ConfigurationDocTest -Dconfiguration.update=true";

  /** One key as the table shows it. */
  record Key(String name, String type, Optional<String> defaultValue, String meaning) {
    String environment() {
      return name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }
  }

  /** A group of keys under one prefix, with its interface's javadoc. */
  record Group(String prefix, String meaning, List<Key> keys) {}

  private ConfigurationDoc() {}

  static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration\n\n")
        .append("<!-- Generated from ")
        .append(SOURCE)
        .append(" by ConfigurationDocTest: do not edit. Regenerate: ")
        .append(REGENERATE)
        .append(" -->\n\n")
        .append(
            "Every `sentinel.*` key the gateway reads, generated from the one list of them,"
                + " `io.sentinel.config.SentinelConfig`. Each is read, highest first, from a"
                + " system property (`-Dsentinel.mqtt.url=...`), the environment (the variable in"
                + " the second column), `.env` in the working folder, and `application.properties`."
                + " Durations are written `500ms`, `30s`, `20m`, `1h`, `30d`; `HOME` is"
                + " `sentinel.home`.\n");
    for (Group g : groups()) {
      out.append("\n## `").append(g.prefix()).append("`\n\n");
      if (!g.meaning().isEmpty()) {
        out.append(g.meaning()).append("\n\n");
      }
      out.append("| key | environment | type | default | meaning |\n|---|---|---|---|---|\n");
      for (Key k : g.keys()) {
        out.append("| `")
            .append(k.name())
            .append("` | `")
            .append(k.environment())
            .append("` | ")
            .append(k.type())
            .append(" | ")
            .append(k.defaultValue().map(d -> "`" + d + "`").orElse("unset"))
            .append(" | ")
            .append(k.meaning().replace("|", "\\|"))
            .append(" |\n");
      }
    }
    out.append(
        "\nThe Quarkus keys a site most often sets: `quarkus.http.port` (`QUARKUS_HTTP_PORT`,"
            + " default `8080`: the dashboard, the API, `/q/health`, `/q/metrics`) and"
            + " `quarkus.log.level` (`QUARKUS_LOG_LEVEL`, default `INFO`); the others:"
            + " https://quarkus.io/guides/all-config.\n");
    return out.toString();
  }

  /** Every key, in source order. */
  static List<Key> keys() {
    return groups().stream().flatMap(g -> g.keys().stream()).toList();
  }

  static List<Group> groups() {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
      JavacTask task =
          (JavacTask)
              javac.getTask(
                  null, files, null, List.of("-proc:none"), null, files.getJavaFileObjects(SOURCE));
      CompilationUnitTree unit = task.parse().iterator().next();
      DocTrees docs = DocTrees.instance(task);
      ClassTree root = (ClassTree) unit.getTypeDecls().get(0);
      List<Group> groups = new ArrayList<>();
      walk(docs, unit, root, "sentinel", groups);
      return groups;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void walk(
      DocTrees docs, CompilationUnitTree unit, ClassTree type, String prefix, List<Group> out) {
    Map<String, ClassTree> nested =
        type.getMembers().stream()
            .filter(m -> m.getKind() == Tree.Kind.INTERFACE)
            .map(ClassTree.class::cast)
            .collect(Collectors.toMap(c -> c.getSimpleName().toString(), Function.identity()));
    List<Key> keys = new ArrayList<>();
    List<MethodTree> groupsBelow = new ArrayList<>();
    for (Tree member : type.getMembers()) {
      if (!(member instanceof MethodTree m) || m.getBody() != null) {
        continue; // a static helper, or a nested interface (walked where its method names it)
      }
      String returned = m.getReturnType().toString();
      if (nested.containsKey(returned)) {
        groupsBelow.add(m);
        continue;
      }
      keys.add(
          new Key(
              prefix + "." + kebab(m.getName().toString()),
              type(returned),
              annotation(m, "WithDefault"),
              firstSentence(docs, unit, m)
                  .orElseThrow(
                      () ->
                          new IllegalStateException(
                              SOURCE + ": " + m.getName() + "() has no javadoc: say what it is"))));
    }
    if (!keys.isEmpty()) {
      String meaning =
          prefix.equals("sentinel")
              ? "The site, and where the gateway keeps its own files."
              : firstSentence(docs, unit, type).orElse("");
      out.add(new Group(prefix, meaning, keys));
    }
    for (MethodTree m : groupsBelow) {
      walk(
          docs,
          unit,
          nested.get(m.getReturnType().toString()),
          prefix + "." + kebab(m.getName().toString()),
          out);
    }
  }

  private static Optional<String> annotation(MethodTree m, String name) {
    return m.getModifiers().getAnnotations().stream()
        .filter(a -> a.getAnnotationType().toString().endsWith(name))
        .map(a -> a.getArguments().get(0).toString())
        .map(v -> v.substring(v.indexOf('"') + 1, v.lastIndexOf('"')))
        .findFirst();
  }

  private static Optional<String> firstSentence(
      DocTrees docs, CompilationUnitTree unit, Tree member) {
    DocCommentTree doc = docs.getDocCommentTree(TreePath.getPath(unit, member));
    if (doc == null) {
      return Optional.empty();
    }
    String text =
        doc.getFullBody().stream()
            .map(Object::toString)
            .collect(Collectors.joining())
            .replaceAll("\\{@code ([^}]*)}", "`$1`")
            .replaceAll("\\s+", " ")
            .trim();
    return Optional.of(text);
  }

  private static String type(String javaType) {
    String inner = javaType.replaceAll("^Optional<(.*)>$", "$1");
    return switch (inner) {
      case "int", "long", "Integer", "Long" -> "integer";
      case "Duration" -> "duration";
      case "Path" -> "path";
      case "boolean", "Boolean" -> "boolean";
      default -> "text";
    };
  }

  /** SmallRye's default naming: {@code maxPayloadBytes} is {@code max-payload-bytes}. */
  static String kebab(String method) {
    return method.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
