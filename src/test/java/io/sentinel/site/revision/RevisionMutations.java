package io.sentinel.site.revision;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.site.Site;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Valid revision documents of the example site (YAML, and the same as JSON) and the ways an
 * operator's editor, a broken tool or an attacker could spoil them, for the fuzz properties.
 */
public final class RevisionMutations {
  public static final String RULES =
      Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));

  /** Fragments that tend to hit the loaders' corners. */
  static final List<String> FRAGMENTS =
      List.of(
          "comment: x",
          "enabled: maybe",
          "enabled: false",
          "band: interlock",
          "band: safety",
          "- id: extra",
          "id: pump-run-on",
          "{",
          "}",
          "[",
          "]",
          ":",
          "\"",
          "'",
          "&a",
          "*a",
          "!!str",
          "!!binary",
          "---",
          "...",
          "\t",
          "  ",
          "\n",
          "boiler.ch1.nope",
          "priority: 101",
          "revision: -1",
          "revision: 3",
          "site: elsewhere",
          "on: transition",
          "1e999",
          "null",
          "~",
          "when: x.value >",
          "claims: []",
          "rules: []",
          "signature: AAAA",
          "derived: {}",
          "points: {}",
          "\u0000",
          "\uD83D\uDCA5",
          "hold_max: 10 minutes",
          "fail_value: 7",
          "value: \"true\"",
          "% ",
          "@",
          "#");

  public enum Kind {
    INSERT,
    DELETE,
    REPLACE_LINE,
    DUPLICATE_LINE,
    DELETE_LINE,
    SWAP_LINES,
    INDENT,
    DEDENT,
    TRUNCATE,
    REPLACE_VALUE
  }

  public record Mutation(Kind kind, int a, int b, String fragment) {}

  private RevisionMutations() {}

  public static String yaml(long revision, String site) {
    return "revision: " + revision + "\nsite: " + site + "\nrules:\n" + RULES;
  }

  public static String json(long revision, String site) {
    try {
      Object tree = new Load(LoadSettings.builder().build()).loadFromString(yaml(revision, site));
      return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String apply(String text, List<Mutation> mutations) {
    String t = text;
    for (Mutation m : mutations) {
      t = apply(t, m);
    }
    return t;
  }

  static String apply(String text, Mutation m) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    int pos = text.isEmpty() ? 0 : Math.floorMod(m.a(), text.length());
    int line = Math.floorMod(m.a(), lines.size());
    int other = Math.floorMod(m.b(), lines.size());
    switch (m.kind()) {
      case INSERT:
        return text.substring(0, pos) + m.fragment() + text.substring(pos);
      case DELETE:
        return text.substring(0, pos)
            + text.substring(Math.min(text.length(), pos + 1 + m.b() % 20));
      case REPLACE_LINE:
        lines.set(line, lines.get(line).replaceAll("\\S.*", "") + m.fragment());
        break;
      case DUPLICATE_LINE:
        lines.add(line, lines.get(line));
        break;
      case DELETE_LINE:
        lines.remove(line);
        break;
      case SWAP_LINES:
        String l = lines.get(line);
        lines.set(line, lines.get(other));
        lines.set(other, l);
        break;
      case INDENT:
        lines.set(line, "  " + lines.get(line));
        break;
      case DEDENT:
        lines.set(line, lines.get(line).replaceFirst("^ {1,2}", ""));
        break;
      case TRUNCATE:
        return text.substring(0, pos);
      case REPLACE_VALUE:
        String s = lines.get(line);
        int colon = s.indexOf(": ");
        if (colon >= 0) {
          lines.set(line, s.substring(0, colon + 2) + m.fragment());
        }
        break;
      default:
        throw new IllegalStateException();
    }
    return String.join("\n", lines);
  }

  /** A random mutation from a seeded generator (the gateway-level check). */
  public static Mutation random(Random r) {
    Kind k = Kind.values()[r.nextInt(Kind.values().length)];
    return new Mutation(
        k, r.nextInt(100_000), r.nextInt(100_000), FRAGMENTS.get(r.nextInt(FRAGMENTS.size())));
  }
}
