package io.sentinel.site.rules;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/** The identity of a definition as written (a rule, a derived point): what a revision compares. */
public final class DefinitionHash {
  private DefinitionHash() {}

  /**
   * A hash of the rule as written, without {@code enabled} (toggling it never resets state) and
   * without {@code description} (rewording a rule changes nothing it does, so a revision keeps its
   * state and needs no review for it).
   */
  public static String of(Node node) {
    StringBuilder b = new StringBuilder();
    canonical(node, b, true);
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(b.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static void canonical(Node node, StringBuilder b, boolean top) {
    if (node instanceof ScalarNode s) {
      b.append('"').append(s.getValue().strip().replace("\"", "\\\"")).append('"');
    } else if (node instanceof SequenceNode s) {
      b.append('[');
      s.getValue().forEach(n -> canonical(n, b.append(','), false));
      b.append(']');
    } else if (node instanceof MappingNode m) {
      b.append('{');
      m.getValue().stream()
          .filter(
              t ->
                  !(top
                      && t.getKeyNode() instanceof ScalarNode k
                      && (k.getValue().equals("enabled") || k.getValue().equals("description"))))
          // A key that is not a scalar is refused by the loader; it must not throw here first.
          .sorted(
              java.util.Comparator.comparing(
                  t -> {
                    if (t.getKeyNode() instanceof ScalarNode k) {
                      return k.getValue();
                    }
                    StringBuilder key = new StringBuilder();
                    canonical(t.getKeyNode(), key, false);
                    return key.toString();
                  }))
          .forEach(
              t -> {
                canonical(t.getKeyNode(), b, false);
                b.append(':');
                canonical(t.getValueNode(), b, false);
                b.append(',');
              });
      b.append('}');
    }
  }
}
