package io.sentinel.site;

import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * The GPIO pins of a registry: a pin is a BCM number of the 40-pin header, and has one owner (one
 * input or one output).
 */
final class GpioPins {
  private GpioPins() {}

  /** The BCM numbers of the Raspberry Pi's 40-pin header (GPIO 0 to 27). */
  static final int PIN_MIN = 0;

  static final int PIN_MAX = 27;

  /** A GPIO pin named by a point: where, and whether it reads or drives it. */
  record PinUse(int pin, boolean output, String pointId, Node at) {}

  /** A pin has one owner: one input, or one output (a pin both read and driven is a short). */
  static void checkPins(YamlFile yaml, List<PinUse> pins) {
    Map<Integer, PinUse> first = new HashMap<>();
    for (PinUse use : pins) {
      PinUse earlier = first.putIfAbsent(use.pin(), use);
      if (earlier == null) {
        continue;
      }
      String where = yaml.file() + ":" + YamlFile.line(earlier.at());
      if (earlier.output() != use.output()) {
        yaml.error(
            use.at(),
            SiteCodes.REG_019,
            "",
            "point "
                + use.pointId()
                + ": gpio pin "
                + use.pin()
                + " is both an input and an output ("
                + role(use)
                + " here, "
                + role(earlier)
                + " of point "
                + earlier.pointId()
                + " at "
                + where
                + ")");
      } else {
        yaml.error(
            use.at(),
            SiteCodes.REG_018,
            "",
            "point "
                + use.pointId()
                + ": gpio pin "
                + use.pin()
                + " is already the "
                + role(earlier)
                + " of point "
                + earlier.pointId()
                + " at "
                + where);
      }
    }
  }

  static String role(PinUse use) {
    return use.output() ? "output" : "input";
  }

  /** A BCM pin number of the 40-pin header, or empty with the problem reported. */
  static Optional<Integer> pin(YamlFile yaml, Fields g, String what, String key) {
    Optional<Double> pin = g.get("pin").flatMap(n -> yaml.number(n, "pin", ""));
    if (pin.isEmpty()) {
      if (!g.has("pin")) {
        yaml.error(g.node(), SiteCodes.REG_013, "", what + ": " + key + " needs a pin");
      }
      return Optional.empty();
    }
    double p = pin.get();
    if (p != Math.rint(p) || p < PIN_MIN || p > PIN_MAX) {
      yaml.error(
          g.get("pin").orElseThrow(),
          SiteCodes.REG_017,
          "",
          what
              + ": "
              + key
              + " pin "
              + YamlFile.scalarOf(g.node(), "pin")
              + " is not a Raspberry Pi GPIO (BCM numbers "
              + PIN_MIN
              + " to "
              + PIN_MAX
              + ")");
      return Optional.empty();
    }
    return Optional.of((int) p);
  }

  /** The {@code pin} node of a point's {@code source.gpio} or {@code driver.gpio}, for messages. */
  static Node pinNode(Fields f, String key) {
    Node n = f.get(key).orElseThrow();
    if (n instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getValueNode() instanceof MappingNode gpio) {
          for (NodeTuple u : gpio.getValue()) {
            if (u.getKeyNode() instanceof ScalarNode k && k.getValue().equals("pin")) {
              return u.getValueNode();
            }
          }
        }
      }
    }
    return n;
  }
}
