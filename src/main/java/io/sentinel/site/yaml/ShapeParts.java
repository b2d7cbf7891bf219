package io.sentinel.site.yaml;

import static io.sentinel.site.yaml.Shape.text;

import io.sentinel.site.yaml.Shape.Keys;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the shapes of every document share: patterns, named references, helpers. */
public final class ShapeParts {
  private ShapeParts() {}

  /** Point and rule ids: lower-case words joined by {@code -}, {@code _} or {@code .}. */
  public static final String ID_PATTERN = "[a-z0-9][a-z0-9_-]*(\\.[a-z0-9_-]+)*";

  /** Durations as {@link YamlFile#parseDuration} reads them. */
  public static final String DURATION_PATTERN = "([0-9]+(ms|s|m|h|d))+";

  // ---- shared definitions --------------------------------------------------------------------

  static final Shape DURATION = new Shape.Ref("duration", "");
  static final Shape POINT_ID = new Shape.Ref("point_id", "");
  static final Shape VALUE = new Shape.Ref("value", "");

  static Shape duration(String description) {
    return new Shape.Ref("duration", description);
  }

  static Shape pointId(String description) {
    return new Shape.Ref("point_id", description);
  }

  static Shape value(String description) {
    return new Shape.Ref("value", description);
  }

  static List<String> wireNames(Enum<?>[] values) {
    return Arrays.stream(values).map(v -> v.name().toLowerCase(java.util.Locale.ROOT)).toList();
  }

  static final Shape FREE_TEXT = text("Free text for people reading the file.");

  /** The keys of each variant, by its discriminating value (a trigger's on, an action's kind). */
  public static Map<String, Set<String>> keySets(Map<String, Keys> variants) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    variants.forEach((k, v) -> m.put(k, v.keys()));
    return java.util.Collections.unmodifiableMap(m);
  }

  static Map<String, Keys> ordered(Object... pairs) {
    Map<String, Keys> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], (Keys) pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  static Map<String, Shape> replace(Map<String, Shape> p, String key, Shape s) {
    Map<String, Shape> m = new LinkedHashMap<>(p);
    m.put(key, s);
    return m;
  }

  static Set<String> union(Map<String, Keys> variants) {
    Set<String> all = new LinkedHashSet<>();
    variants.values().forEach(k -> all.addAll(k.keys()));
    return java.util.Collections.unmodifiableSet(all);
  }
}
