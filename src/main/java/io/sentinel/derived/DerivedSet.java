package io.sentinel.derived;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A site's derived points, in an order where every point comes after the points it reads. */
public record DerivedSet(List<DerivedPoint> ordered) {
  public static final DerivedSet EMPTY = new DerivedSet(List.of());

  public DerivedSet {
    ordered = List.copyOf(ordered);
  }

  public boolean contains(String pointId) {
    return ordered.stream().anyMatch(d -> d.id().equals(pointId));
  }

  /** Either the ids in dependency order, or the first cycle found (its first id repeated last). */
  public record Ordering(List<String> order, Optional<List<String>> cycle) {}

  /**
   * Orders ids so that each comes after the ids it reads; reads of ids outside {@code reads}'s keys
   * (registry points) impose nothing.
   */
  public static Ordering order(Map<String, List<String>> reads) {
    Map<String, Integer> mark = new HashMap<>(); // 1: on the current path, 2: placed
    List<String> out = new ArrayList<>();
    for (String id : reads.keySet()) {
      Optional<List<String>> cycle = visit(id, reads, mark, new ArrayList<>(), out);
      if (cycle.isPresent()) {
        return new Ordering(out, cycle);
      }
    }
    return new Ordering(out, Optional.empty());
  }

  private static Optional<List<String>> visit(
      String id,
      Map<String, List<String>> reads,
      Map<String, Integer> mark,
      List<String> path,
      List<String> out) {
    Integer m = mark.get(id);
    if (m != null && m == 2) {
      return Optional.empty();
    }
    if (m != null) {
      List<String> cycle = new ArrayList<>(path.subList(path.indexOf(id), path.size()));
      cycle.add(id);
      return Optional.of(cycle);
    }
    mark.put(id, 1);
    path.add(id);
    for (String input : reads.get(id)) {
      if (reads.containsKey(input)) {
        Optional<List<String>> cycle = visit(input, reads, mark, path, out);
        if (cycle.isPresent()) {
          return cycle;
        }
      }
    }
    path.remove(path.size() - 1);
    mark.put(id, 2);
    out.add(id);
    return Optional.empty();
  }
}
