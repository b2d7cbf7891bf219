package io.sentinel.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An action message's placeholders, {@code {{ name }}}: the one definition of what a name may be
 * (the loader's check) and of how the message is filled in (the engine, when the action fires).
 */
public final class MessageTemplate {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([^}]*?)\\s*}}");

  private MessageTemplate() {}

  /** What a placeholder stands for. */
  public sealed interface Placeholder {
    /** {@code {{ rule }}}: the rule's id. */
    record RuleId() implements Placeholder {}

    /** {@code {{ channel }}}: another field of the same action. */
    record Field(String name) implements Placeholder {}

    /** {@code {{ input.value }}} or {@code {{ input.quality }}}: one of the rule's inputs. */
    record Input(String input, boolean quality) implements Placeholder {}
  }

  /** The placeholder names in a message, in order, as written between the braces. */
  public static List<String> names(String template) {
    List<String> names = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(template);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /**
   * What {@code name} stands for in an action with these fields, of a rule with these inputs; empty
   * when it is none of them (the loader's RULE-063).
   */
  public static Optional<Placeholder> parse(String name, Set<String> fields, Set<String> inputs) {
    if (name.equals("rule")) {
      return Optional.of(new Placeholder.RuleId());
    }
    if (fields.contains(name)) {
      return Optional.of(new Placeholder.Field(name));
    }
    int dot = name.lastIndexOf('.');
    if (dot > 0
        && inputs.contains(name.substring(0, dot))
        && (name.endsWith(".value") || name.endsWith(".quality"))) {
      return Optional.of(new Placeholder.Input(name.substring(0, dot), name.endsWith(".quality")));
    }
    return Optional.empty();
  }

  /**
   * The message with each placeholder filled in by {@code fill}; one that stands for nothing (the
   * loader refuses those) is left as written.
   */
  public static String render(
      String template, Set<String> fields, Set<String> inputs, Function<Placeholder, String> fill) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      Optional<Placeholder> p = parse(m.group(1), fields, inputs);
      m.appendReplacement(b, Matcher.quoteReplacement(p.map(fill).orElse(m.group())));
    }
    m.appendTail(b);
    return b.toString();
  }
}
