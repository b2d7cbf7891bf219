package io.sentinel.site.yaml;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The door's duplicate-key check for YAML (and JSON read as YAML): every mapping of a document, at
 * any depth, open mappings such as {@code inputs} and {@code value_map} as much as the fixed ones,
 * names each key once. Keys are compared as the gateway reads them, as text, so {@code 1} and
 * {@code "1"} are one key here (a last-wins or first-wins reading of either would be a way to hide
 * a value from a reviewer). The walk is iterative and visits each node once, so an alias shared by
 * many mappings costs nothing more; depth is bounded by {@link DoorParser} before this runs.
 */
final class DuplicateKeys {
  private DuplicateKeys() {}

  /** A key named a second time in one mapping: where, which, and where it was first named. */
  record Duplicate(int line, String key, int firstLine) {}

  /** Every duplicate of the documents, in document order. */
  static List<Duplicate> in(List<Node> documents) {
    List<Duplicate> found = new ArrayList<>();
    Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Node> todo = new ArrayDeque<>();
    for (int i = documents.size() - 1; i >= 0; i--) {
      todo.push(documents.get(i));
    }
    while (!todo.isEmpty()) {
      Node n = todo.pop();
      if (!seen.add(n)) {
        continue;
      }
      List<Node> children = new ArrayList<>();
      if (n instanceof MappingNode m) {
        Map<String, Integer> first = new HashMap<>();
        for (NodeTuple t : m.getValue()) {
          if (t.getKeyNode() instanceof ScalarNode k) {
            Integer before = first.putIfAbsent(k.getValue(), YamlFile.line(k));
            if (before != null) {
              found.add(new Duplicate(YamlFile.line(k), k.getValue(), before));
            }
          }
          children.add(t.getKeyNode());
          children.add(t.getValueNode());
        }
      } else if (n instanceof SequenceNode s) {
        children.addAll(s.getValue());
      }
      for (int i = children.size() - 1; i >= 0; i--) {
        todo.push(children.get(i));
      }
    }
    found.sort(java.util.Comparator.comparingInt(Duplicate::line));
    return found;
  }
}
