package io.sentinel.site.yaml;

import io.sentinel.door.Door;
import io.sentinel.door.Flaw;
import io.sentinel.door.Refusal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * A YAML document read as a node tree with line numbers. Scalars are read as text and interpreted
 * by the field that holds them, so YAML 1.1's {@code on}/{@code yes}/{@code off} booleans never
 * arise: a key {@code on} is the string "on", and a bool field accepts only {@code true} and {@code
 * false}.
 */
public final class YamlFile {
  private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private final String file;
  private final Problems problems;

  public YamlFile(String file, Problems problems) {
    this.file = file;
    this.problems = problems;
  }

  public String file() {
    return file;
  }

  public Problems problems() {
    return problems;
  }

  /** Parses the text's first document; a syntax error is reported with its line. */
  public Optional<Node> parse(String text) {
    return parseAll(text).stream().findFirst();
  }

  /**
   * Every document of the text (separated by ---); a syntax error is reported and ends the list.
   */
  public List<Node> parseAll(String text) {
    LoadSettings settings =
        LoadSettings.builder()
            .setLabel(file)
            .setUseMarks(true)
            .setMaxAliasesForCollections(50)
            .setCodePointLimit(Door.MAX_YAML_CODE_POINTS)
            .build();
    List<Node> out = new ArrayList<>();
    if (text.length() > Door.MAX_YAML_CODE_POINTS) {
      // Refused unread, before any parser allocates for it (a UTF-16 length bounds the code
      // points).
      problems.error(
          YamlCodes.YAML_102,
          file,
          0,
          "",
          "oversize: a YAML or JSON document is at most "
              + Door.MAX_YAML_CODE_POINTS
              + " characters; this one has "
              + text.length());
      return out;
    }
    try {
      Composer composer = new Composer(settings, new DoorParser(settings, text));
      while (composer.hasNext()) {
        out.add(composer.next());
      }
      List<DuplicateKeys.Duplicate> duplicates = DuplicateKeys.in(out);
      for (DuplicateKeys.Duplicate d : duplicates) {
        problems.error(
            YamlCodes.YAML_014,
            file,
            d.line(),
            "",
            Flaw.DUPLICATE_KEY.wireName()
                + ": '"
                + Door.printable(d.key(), 80)
                + "' is named twice in one mapping (first at line "
                + d.firstLine()
                + "): a key names one value");
      }
      if (!duplicates.isEmpty()) {
        out.clear();
      }
    } catch (Refusal r) {
      problems.error(
          r.flaw() == Flaw.TOO_DEEP
              ? YamlCodes.YAML_100
              : r.flaw() == Flaw.CONTROL_CHARACTER ? YamlCodes.YAML_101 : YamlCodes.YAML_102,
          file,
          r.where().startsWith("line ") ? Integer.parseInt(r.where().substring(5)) : 0,
          "",
          r.flaw().wireName() + ": " + r.getMessage());
      out.clear();
    } catch (MarkedYamlEngineException e) {
      int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
      problems.error(
          YamlCodes.YAML_001,
          file,
          line,
          "",
          "not valid YAML: " + Door.printable(e.getProblem(), 300));
      out.clear();
    } catch (YamlEngineException e) {
      problems.error(
          YamlCodes.YAML_001,
          file,
          0,
          "",
          "not valid YAML: " + Door.printable(e.getMessage(), 300));
      out.clear();
    }
    return out;
  }

  /** The door's flaw a problem code of {@link #parseAll} stands for, if it is one of the door's. */
  public static Optional<Flaw> doorFlaw(String code) {
    if (code.equals(YamlCodes.YAML_100.id())) {
      return Optional.of(Flaw.TOO_DEEP);
    }
    if (code.equals(YamlCodes.YAML_101.id())) {
      return Optional.of(Flaw.CONTROL_CHARACTER);
    }
    if (code.equals(YamlCodes.YAML_014.id())) {
      return Optional.of(Flaw.DUPLICATE_KEY);
    }
    return code.equals(YamlCodes.YAML_102.id()) ? Optional.of(Flaw.OVERSIZE) : Optional.empty();
  }

  /** The text of a mapping's scalar value under {@code key}, before the mapping is checked. */
  public static String scalarOf(Node node, String key) {
    if (node instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getKeyNode() instanceof ScalarNode k
            && k.getValue().equals(key)
            && t.getValueNode() instanceof ScalarNode v) {
          return v.getValue();
        }
      }
    }
    return "";
  }

  public static int line(Node node) {
    return node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
  }

  public void error(Node at, Code code, String rule, String message) {
    problems.error(code, file, line(at), rule, message);
  }

  public void warning(Node at, Code code, String rule, String message) {
    problems.warning(code, file, line(at), rule, message);
  }

  /** The text of a scalar node, or empty (with an error) when the node is not a scalar. */
  public Optional<String> text(Node node, String field, String rule) {
    if (node instanceof ScalarNode s) {
      return Optional.of(s.getValue());
    }
    error(
        node, YamlCodes.YAML_010, rule, field + ": expected a single value, found a " + kind(node));
    return Optional.empty();
  }

  public static boolean isPlain(Node node) {
    return node instanceof ScalarNode s && s.getScalarStyle() == ScalarStyle.PLAIN;
  }

  public static boolean isNull(Node node) {
    if (!(node instanceof ScalarNode s) || s.getScalarStyle() != ScalarStyle.PLAIN) {
      return false;
    }
    String v = s.getValue();
    return v.isEmpty() || v.equals("null") || v.equals("~");
  }

  public Optional<List<Node>> sequence(Node node, String field, String rule) {
    if (node instanceof SequenceNode s) {
      return Optional.of(s.getValue());
    }
    error(node, YamlCodes.YAML_011, rule, field + ": expected a list, found a " + kind(node));
    return Optional.empty();
  }

  /** A list, or a single value taken as a list of one (as in {@code of: demand}). */
  public List<Node> oneOrMany(Node node) {
    return node instanceof SequenceNode s ? s.getValue() : List.of(node);
  }

  public Optional<Fields> mapping(Node node, String what, String rule, Collection<String> allowed) {
    if (!(node instanceof MappingNode m)) {
      error(
          node,
          YamlCodes.YAML_012,
          rule,
          what + ": expected a mapping of keys, found a " + kind(node));
      return Optional.empty();
    }
    return Optional.of(new Fields(m, what, rule, Set.copyOf(allowed)));
  }

  /** Parses {@code 500ms}, {@code 30s}, {@code 20m}, {@code 1h30m}, {@code 2d}. */
  public static Optional<java.time.Duration> parseDuration(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    Matcher m = DURATION_PART.matcher(t);
    java.time.Duration total = java.time.Duration.ZERO;
    int pos = 0;
    while (m.find()) {
      if (m.start() != pos) {
        return Optional.empty();
      }
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> java.time.Duration.ofMillis(n);
                case "s" -> java.time.Duration.ofSeconds(n);
                case "m" -> java.time.Duration.ofMinutes(n);
                case "h" -> java.time.Duration.ofHours(n);
                default -> java.time.Duration.ofDays(n);
              });
      pos = m.end();
    }
    return pos == t.length() ? Optional.of(total) : Optional.empty();
  }

  public Optional<java.time.Duration> duration(Node node, String field, String rule) {
    Optional<java.time.Duration> d = text(node, field, rule).flatMap(YamlFile::parseDuration);
    if (d.isEmpty() && node instanceof ScalarNode s) {
      error(
          node,
          YamlCodes.YAML_020,
          rule,
          field
              + ": '"
              + s.getValue()
              + "' is not a duration (write e.g. 500ms, 30s, 20m, 1h30m, 2d)");
    }
    return d;
  }

  public Optional<Boolean> bool(Node node, String field, String rule) {
    Optional<String> t = text(node, field, rule);
    if (t.isPresent() && isPlain(node) && (t.get().equals("true") || t.get().equals("false"))) {
      return Optional.of(Boolean.parseBoolean(t.get()));
    }
    if (t.isPresent()) {
      error(
          node,
          YamlCodes.YAML_021,
          rule,
          field + ": expected true or false, found '" + t.get() + "'");
    }
    return Optional.empty();
  }

  public Optional<Double> number(Node node, String field, String rule) {
    Optional<String> t = text(node, field, rule);
    if (t.isPresent() && isPlain(node)) {
      try {
        double d = Double.parseDouble(t.get());
        if (Double.isFinite(d) && !t.get().matches(".*[a-zA-Z&&[^eE]].*")) {
          return Optional.of(d);
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    if (t.isPresent()) {
      error(node, YamlCodes.YAML_022, rule, field + ": expected a number, found '" + t.get() + "'");
    }
    return Optional.empty();
  }

  private static String kind(Node node) {
    return switch (node.getNodeType()) {
      case MAPPING -> "mapping";
      case SEQUENCE -> "list";
      default -> "value";
    };
  }

  /** Closest allowed key, to turn a typo into a useful message. */
  static Optional<String> suggest(String key, Collection<String> allowed) {
    String best = null;
    int bestDistance = 3;
    for (String a : allowed) {
      int d = distance(key, a);
      if (d < bestDistance) {
        best = a;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * The keys of one mapping. Unknown keys are reported when the mapping is opened, so every reader
   * of a mapping checks them the same way; a duplicate key never gets this far ({@link #parseAll}
   * refuses the document, {@link DuplicateKeys}).
   */
  public final class Fields {
    private final MappingNode node;
    private final Map<String, Node> values = new LinkedHashMap<>();
    private final Map<String, Node> keys = new LinkedHashMap<>();

    Fields(MappingNode node, String what, String rule, Set<String> allowed) {
      this.node = node;
      for (NodeTuple t : node.getValue()) {
        if (!(t.getKeyNode() instanceof ScalarNode k)) {
          error(t.getKeyNode(), YamlCodes.YAML_013, rule, what + ": a key must be a plain name");
          continue;
        }
        String key = k.getValue();
        if (!allowed.isEmpty() && !allowed.contains(key)) {
          String hint = suggest(key, allowed).map(s -> " (did you mean '" + s + "'?)").orElse("");
          error(
              k,
              YamlCodes.YAML_015,
              rule,
              what + ": unknown key '" + key + "'" + hint + "; allowed: " + sortedList(allowed));
          continue;
        }
        values.put(key, t.getValueNode());
        keys.put(key, k);
      }
    }

    private static String sortedList(Set<String> allowed) {
      List<String> l = new ArrayList<>(allowed);
      java.util.Collections.sort(l);
      return String.join(", ", l);
    }

    public MappingNode node() {
      return node;
    }

    public Optional<Node> get(String key) {
      return Optional.ofNullable(values.get(key));
    }

    public boolean has(String key) {
      return values.containsKey(key);
    }

    /** Keys in document order, with their value nodes (for open mappings such as inputs). */
    public Map<String, Node> entries() {
      return values;
    }

    public Node keyNode(String key) {
      return keys.getOrDefault(key, node);
    }
  }
}
