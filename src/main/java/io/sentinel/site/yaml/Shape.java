package io.sentinel.site.yaml;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The shape of a YAML value in a site's files, declared once ({@link DocumentShapes}): the loaders
 * take the keys each mapping allows from it, and the JSON Schema of {@code rules/schema/} is
 * generated from it ({@link SchemaWriter}). What a loader checks beyond a shape (references to
 * points, expressions, units against types) is the loader's; what a shape says, the loader and the
 * schema say alike.
 */
public sealed interface Shape {
  String description();

  /** A mapping with known keys; {@code exactlyOne}: it holds exactly one of them. */
  record Keys(
      String description, Map<String, Shape> properties, Set<String> required, boolean exactlyOne)
      implements Shape {
    /** Keys in the order given (required too: a Set.of would order them anew in every JVM). */
    public Keys {
      properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
      required = Collections.unmodifiableSet(new LinkedHashSet<>(required));
      if (!properties.keySet().containsAll(required)) {
        throw new IllegalArgumentException("required keys " + required + " not all declared");
      }
    }

    /** The keys a loader accepts in this mapping. */
    public Set<String> keys() {
      return properties.keySet();
    }

    /** A copy with the keys of {@code other} added (a kind's keys on top of the common ones). */
    public Keys with(Keys other) {
      Map<String, Shape> p = new LinkedHashMap<>(properties);
      p.putAll(other.properties);
      Set<String> r = new LinkedHashSet<>(required);
      r.addAll(other.required);
      return new Keys(other.description, p, r, false);
    }
  }

  /** A mapping from names the author chooses ({@code pattern}, if any) to values of one shape. */
  record NamedMap(String description, Optional<String> pattern, Shape values) implements Shape {}

  /** A string; {@code choices}: one of these; {@code pattern}: a regular expression it matches. */
  record Text(String description, List<String> choices, Optional<String> pattern) implements Shape {
    public Text {
      choices = List.copyOf(choices);
    }
  }

  record Num(String description, OptionalDouble minimum) implements Shape {}

  record Int(String description, Optional<Long> minimum, Optional<Long> maximum) implements Shape {}

  record Flag(String description) implements Shape {}

  /** A point's value as written in YAML: true/false, a number, or a string (enum, text, 68F). */
  record PointValue(String description) implements Shape {}

  /** YAML's null (an empty value), e.g. {@code driver: {mqtt: }}. */
  record Nothing(String description) implements Shape {}

  /** Anything: left to the loader (the DSL's open-ended conditions and outputs). */
  record Anything(String description) implements Shape {}

  record ListOf(String description, Shape items, int minItems, Optional<Integer> maxItems)
      implements Shape {}

  /** One of several shapes. */
  record Either(String description, List<Shape> options) implements Shape {
    public Either {
      options = List.copyOf(options);
    }
  }

  /** A shape defined once under a name, used in several places. */
  record Ref(String name, String description) implements Shape {}

  // ---- builders, so that DocumentShapes reads like the documents it describes ----------------

  static Keys keys(String description, Object... nameShapePairs) {
    Map<String, Shape> p = new LinkedHashMap<>();
    for (int i = 0; i < nameShapePairs.length; i += 2) {
      p.put((String) nameShapePairs[i], (Shape) nameShapePairs[i + 1]);
    }
    return new Keys(description, p, Set.of(), false);
  }

  static Keys required(Keys k, String... names) {
    Set<String> r = new LinkedHashSet<>(k.required());
    r.addAll(Arrays.asList(names));
    return new Keys(k.description(), k.properties(), r, k.exactlyOne());
  }

  static Keys exactlyOne(Keys k) {
    return new Keys(k.description(), k.properties(), k.required(), true);
  }

  static Text text(String description) {
    return new Text(description, List.of(), Optional.empty());
  }

  static Text choice(String description, List<String> choices) {
    return new Text(description, choices, Optional.empty());
  }

  static Text matching(String description, String pattern) {
    return new Text(description, List.of(), Optional.of(pattern));
  }

  static Either either(String description, Shape... options) {
    return new Either(description, List.of(options));
  }

  static ListOf list(String description, Shape items) {
    return new ListOf(description, items, 0, Optional.empty());
  }
}
