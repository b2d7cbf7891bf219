package io.sentinel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every message id is declared once, used for one message and documented in docs/messages.md.
 * Problem ids are the constants of the catalogues (enums implementing {@code site.yaml.Code}, and
 * {@code expr.ProblemCode}); log ids ({@code SEN-…}) begin a log line at exactly one place.
 */
class MessageIdsTest {
  private static final Path SOURCES = Path.of("src/main/java");
  private static final Path DOC = Path.of("docs/messages.md");
  private static final Pattern ID = Pattern.compile("\\b[A-Z]{2,6}(?:-[A-Z]{2,5})?-\\d{3}\\b");
  private static final Pattern LITERAL = Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"");
  private static final Pattern CATALOGUE =
      Pattern.compile("enum (\\w+) implements Code \\{([\\w,\\s]+);");
  private static final Pattern DOC_ROW = Pattern.compile("^\\| ([A-Z][A-Z-]*-\\d{3}) \\|", 8);
  private static final String EXPR_CATALOGUE = "io/sentinel/expr/ProblemCode.java";

  /** Source file (relative to src/main/java) to its text. */
  private static final Map<String, String> files = new TreeMap<>();

  /** Catalogue id to the catalogue (file) declaring it; several files when declared twice. */
  private static final Map<String, List<String>> declared = new TreeMap<>();

  /** Catalogue constant (RULE_040) of the site catalogues, to its enum. */
  private static final Map<String, String> constants = new TreeMap<>();

  @BeforeAll
  static void read() throws Exception {
    try (Stream<Path> s = Files.walk(SOURCES)) {
      for (Path p : s.filter(f -> f.toString().endsWith(".java")).toList()) {
        files.put(SOURCES.relativize(p).toString(), Files.readString(p, StandardCharsets.UTF_8));
      }
    }
    files.forEach(
        (file, text) -> {
          Matcher m = CATALOGUE.matcher(text);
          while (m.find()) {
            for (String c : m.group(2).trim().split("[,\\s]+")) {
              declared.computeIfAbsent(c.replace('_', '-'), k -> new ArrayList<>()).add(file);
              constants.put(c, m.group(1));
            }
          }
        });
    // The expression language's catalogue names its constants for what they mean.
    Class<?> exprCodes = Class.forName("io.sentinel.expr.ProblemCode");
    Method code = exprCodes.getDeclaredMethod("code");
    code.setAccessible(true);
    for (Object c : exprCodes.getEnumConstants()) {
      declared.computeIfAbsent((String) code.invoke(c), k -> new ArrayList<>()).add(EXPR_CATALOGUE);
    }
  }

  @Test
  void everyIdIsDeclaredOnce() {
    assertThat(declared).isNotEmpty();
    assertThat(declared)
        .allSatisfy((id, where) -> assertThat(where).as("%s is declared in", id).hasSize(1));
  }

  @Test
  void problemIdsAreNeverWrittenOutsideTheirCatalogue() {
    Set<String> prefixes = new TreeSet<>();
    declared.keySet().forEach(id -> prefixes.add(prefix(id)));
    List<String> written = new ArrayList<>();
    idsInLiterals()
        .forEach(
            (id, where) -> {
              if (prefixes.contains(prefix(id))) {
                where.stream()
                    .filter(w -> !w.startsWith(EXPR_CATALOGUE + ":"))
                    .forEach(w -> written.add(id + " at " + w));
              }
            });
    assertThat(written).as("problem ids written as strings instead of a catalogue's").isEmpty();
  }

  @Test
  void everyLogIdStandsAtOnePlace() {
    List<String> twice = new ArrayList<>();
    logIds()
        .forEach(
            (id, where) -> {
              if (where.size() > 1) {
                twice.add(id + " at " + where);
              }
            });
    assertThat(logIds()).isNotEmpty();
    assertThat(twice).as("log ids used at more than one place").isEmpty();
  }

  @Test
  void everyCatalogueConstantIsUsed() {
    List<String> unused = new ArrayList<>();
    constants.forEach(
        (constant, catalogue) -> {
          Pattern use = Pattern.compile("\\b" + catalogue + "\\." + constant + "\\b");
          if (files.values().stream().noneMatch(t -> use.matcher(t).find())) {
            unused.add(catalogue + "." + constant);
          }
        });
    assertThat(unused).as("declared but never reported").isEmpty();
  }

  @Test
  void everyIdIsDocumentedOnce_andEveryDocumentedIdExists() throws IOException {
    Map<String, Integer> documented = new TreeMap<>();
    Matcher m = DOC_ROW.matcher(Files.readString(DOC, StandardCharsets.UTF_8));
    while (m.find()) {
      documented.merge(m.group(1), 1, Integer::sum);
    }
    Set<String> ids = new TreeSet<>(declared.keySet());
    ids.addAll(logIds().keySet());

    assertThat(documented).allSatisfy((id, n) -> assertThat(n).as("rows for %s", id).isOne());
    assertThat(documented.keySet()).as("ids missing from docs/messages.md").containsAll(ids);
    assertThat(ids).as("ids in docs/messages.md that no code has").containsAll(documented.keySet());
  }

  /** Ids that are not problem ids: those of log lines, by the place they stand. */
  private static Map<String, List<String>> logIds() {
    Set<String> prefixes = new TreeSet<>();
    declared.keySet().forEach(id -> prefixes.add(prefix(id)));
    Map<String, List<String>> out = new TreeMap<>();
    idsInLiterals()
        .forEach(
            (id, where) -> {
              if (!prefixes.contains(prefix(id))) {
                out.put(id, where);
              }
            });
    return out;
  }

  /** Every id-shaped word in a string literal of src/main, with file:line of each. */
  private static Map<String, List<String>> idsInLiterals() {
    Map<String, List<String>> out = new TreeMap<>();
    files.forEach(
        (file, text) -> {
          Matcher lit = LITERAL.matcher(text);
          while (lit.find()) {
            Matcher id = ID.matcher(lit.group());
            while (id.find()) {
              if (id.group().startsWith("SHA-")) {
                continue; // SHA-256 is an algorithm, not a message
              }
              int line =
                  (int) text.substring(0, lit.start()).chars().filter(c -> c == '\n').count();
              out.computeIfAbsent(id.group(), k -> new ArrayList<>()).add(file + ":" + (line + 1));
            }
          }
        });
    return out;
  }

  private static String prefix(String id) {
    return id.substring(0, id.lastIndexOf('-'));
  }
}
