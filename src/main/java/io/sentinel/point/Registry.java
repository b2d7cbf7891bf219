package io.sentinel.point;

import java.util.Collection;
import java.util.LinkedHashMap;
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

  public Optional<PointSpec> find(String id) {
    return Optional.ofNullable(points.get(id));
  }
}
