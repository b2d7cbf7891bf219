package io.sentinel.point;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The point registry of a site: every point by id. */
public record Registry(Map<String, PointSpec> points) {
  public Registry {
    points = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(points));
  }

  public static Registry of(Collection<PointSpec> specs) {
    Map<String, PointSpec> m = new LinkedHashMap<>();
    specs.forEach(s -> m.put(s.id(), s));
    return new Registry(m);
  }

  /**
   * The points in the order of their positions: the point table's, and the position a decoder hands
   * the engine with a sample ({@link Sample#position}).
   */
  public List<PointSpec> inOrder() {
    return List.copyOf(points.values());
  }

  public Optional<PointSpec> find(String id) {
    return Optional.ofNullable(points.get(id));
  }
}
