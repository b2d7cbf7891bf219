package io.sentinel.site;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.point.CommandTemplate;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Value;
import io.sentinel.point.ValueMap;
import io.sentinel.site.yaml.ValueReader;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * The device parts of a registry entry (docs/devices.md): value maps on ingest ({@code value_map},
 * {@code source.mqtt.map}) and the command template of {@code driver.mqtt} ({@code payload}, {@code
 * map}, {@code qos}, {@code retain}), each checked against the point's type at load. Read from the
 * nodes the registry loader already checked for their keys; reports only its own codes.
 */
final class DeviceFields {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(.*?)}}");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private DeviceFields() {}

  /** {@code base} with its source's value map and its driver's command template, if any. */
  static PointSpec apply(YamlFile yaml, Fields f, PointSpec base) {
    String what = "point " + base.id();
    Optional<Node> pointMapNode = f.get("value_map");
    Optional<ValueMap> pointMap = pointMapNode.flatMap(n -> deviceToPoint(yaml, n, base, what));
    Optional<Node> sourceMapNode =
        f.get("source").flatMap(s -> child(s, "mqtt")).flatMap(m -> child(m, "map"));
    Optional<ValueMap> sourceMap = sourceMapNode.flatMap(n -> deviceToPoint(yaml, n, base, what));
    Optional<Node> mqttDriver = f.get("driver").flatMap(d -> child(d, "mqtt"));
    boolean mqttSource = base.source().orElse(null) instanceof PointSource.Mqtt;
    boolean mqttDriven = base.driver().orElse(null) instanceof PointDriver.Mqtt;
    if (pointMapNode.isPresent() && !mqttSource && !mqttDriven) {
      yaml.error(
          f.keyNode("value_map"),
          SiteCodes.REG_104,
          "",
          what
              + ": value_map spells the values of a source.mqtt or driver.mqtt mapping; it has"
              + " neither");
    }
    Optional<ValueMap> ingest = sourceMap.or(() -> mqttSource ? pointMap : Optional.empty());
    Optional<PointDriver> driver = base.driver();
    if (mqttDriven && base.driver().get() instanceof PointDriver.Mqtt m) {
      Optional<CommandTemplate> template =
          mqttDriver.flatMap(n -> template(yaml, n, base, pointMap, what));
      if (template.isEmpty() && pointMap.isPresent()) {
        template = Optional.of(new CommandTemplate(Optional.empty(), pointMap, 1, false));
        checkRenders(yaml, pointMapNode.get(), base, template.get(), what);
      }
      driver = Optional.of(new PointDriver.Mqtt(m.topic(), template));
    }
    return base.withDevice(ingest, driver);
  }

  /** {@code driver.mqtt}'s payload, map, qos and retain, when it has any of them. */
  private static Optional<CommandTemplate> template(
      YamlFile yaml, Node mqtt, PointSpec base, Optional<ValueMap> pointMap, String what) {
    Optional<Node> payloadNode = child(mqtt, "payload");
    Optional<Node> mapNode = child(mqtt, "map");
    Optional<Node> qosNode = child(mqtt, "qos");
    Optional<Node> retainNode = child(mqtt, "retain");
    if (payloadNode.isEmpty() && mapNode.isEmpty() && qosNode.isEmpty() && retainNode.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> payload = payloadNode.flatMap(n -> yaml.text(n, what + " payload", ""));
    Optional<ValueMap> map =
        mapNode.isPresent() ? pointToDevice(yaml, mapNode.get(), base, what) : pointMap;
    int qos = qosNode.flatMap(n -> yaml.number(n, what + " qos", "")).orElse(1.0).intValue();
    if (qosNode.isPresent() && !Set.of(0, 1, 2).contains(qos)) {
      yaml.error(qosNode.get(), SiteCodes.REG_103, "", what + ": qos is 0, 1 or 2");
    }
    boolean retain = retainNode.flatMap(n -> yaml.bool(n, what + " retain", "")).orElse(false);
    CommandTemplate t = new CommandTemplate(payload, map, qos, retain);
    checkRenders(yaml, payloadNode.or(() -> mapNode).orElse(mqtt), base, t, what);
    return Optional.of(t);
  }

  /**
   * Every value the point can be commanded renders to a payload, and a JSON template to JSON: a
   * device would otherwise get a payload it cannot use, found only when the command is sent.
   */
  private static void checkRenders(
      YamlFile yaml, Node at, PointSpec base, CommandTemplate t, String what) {
    Matcher m = PLACEHOLDER.matcher(t.payload().orElse(""));
    while (m.find()) {
      if (!m.group(1).equals("value")) {
        yaml.error(
            at,
            SiteCodes.REG_102,
            "",
            what + ": payload placeholder '" + m.group() + "' is not {{value}}");
        return;
      }
    }
    for (Value v : samples(base)) {
      Optional<String> rendered = t.render(v);
      if (rendered.isEmpty()) {
        return; // the map's coverage error says why
      }
      if (t.json()) {
        try {
          JSON.readTree(rendered.get());
        } catch (JsonProcessingException e) {
          yaml.error(
              at,
              SiteCodes.REG_102,
              "",
              what
                  + ": payload for "
                  + v
                  + " renders as "
                  + rendered.get()
                  + ", which is not JSON");
          return;
        }
      }
    }
  }

  /** The values a check renders: every bool or enum value, a number's range ends, a text. */
  private static List<Value> samples(PointSpec base) {
    PointType type = base.type();
    if (type instanceof PointType.Bool) {
      return List.of(Value.TRUE, Value.FALSE);
    }
    if (type instanceof PointType.Enum e) {
      return e.values().stream().map(Value::of).toList();
    }
    if (type instanceof PointType.Number) {
      return base.range()
          .map(
              r -> List.of(Value.of(r.min()), Value.of(r.max()), Value.of((r.min() + r.max()) / 2)))
          .orElse(List.of(Value.of(0), Value.of(1.5), Value.of(-40)));
    }
    return List.of(Value.of("text \"quoted\""));
  }

  /** An ingest map: the device's spellings (keys) to the point's values. */
  private static Optional<ValueMap> deviceToPoint(
      YamlFile yaml, Node node, PointSpec base, String what) {
    return valueMap(yaml, node, base, what, true);
  }

  /** A command map: the point's values (keys) to the device's spellings. */
  private static Optional<ValueMap> pointToDevice(
      YamlFile yaml, Node node, PointSpec base, String what) {
    return valueMap(yaml, node, base, what, false);
  }

  private static Optional<ValueMap> valueMap(
      YamlFile yaml, Node node, PointSpec base, String what, boolean deviceKeys) {
    Optional<List<NodeTuple>> tuples = tuples(yaml, node, base, what);
    if (tuples.isEmpty()) {
      return Optional.empty();
    }
    String field = deviceKeys ? "value map" : "driver.mqtt map";
    List<ValueMap.Entry> entries = new ArrayList<>();
    for (NodeTuple t : tuples.get()) {
      Node deviceNode = deviceKeys ? t.getKeyNode() : t.getValueNode();
      Node valueNode = deviceKeys ? t.getValueNode() : t.getKeyNode();
      Optional<String> device = yaml.text(deviceNode, what + " " + field, "");
      Optional<Value> value = ValueReader.read(yaml, valueNode, base, field, "");
      if (device.isPresent() && value.isPresent()) {
        entries.add(new ValueMap.Entry(device.get(), value.get()));
      }
    }
    return covered(yaml, node, base, what, entries);
  }

  private static Optional<List<NodeTuple>> tuples(
      YamlFile yaml, Node node, PointSpec base, String what) {
    if (!(node instanceof MappingNode m) || m.getValue().isEmpty()) {
      yaml.error(node, SiteCodes.REG_100, "", what + ": a value map is a non-empty mapping");
      return Optional.empty();
    }
    if (base.type() instanceof PointType.Number) {
      yaml.error(
          node,
          SiteCodes.REG_101,
          "",
          what
              + ": a number point takes numbers as they are; a value map spells bool, enum or"
              + " string values");
      return Optional.empty();
    }
    return Optional.of(m.getValue());
  }

  /** The map, if it spells every value of a bool or enum point (REG-100 names what is missing). */
  private static Optional<ValueMap> covered(
      YamlFile yaml, Node node, PointSpec base, String what, List<ValueMap.Entry> entries) {
    Set<Value> missing = new LinkedHashSet<>();
    if (base.type() instanceof PointType.Bool || base.type() instanceof PointType.Enum) {
      missing.addAll(samples(base));
    }
    entries.forEach(e -> missing.remove(e.value()));
    if (!missing.isEmpty()) {
      yaml.error(
          node,
          SiteCodes.REG_100,
          "",
          what
              + ": the value map does not cover the point's "
              + base.type().name()
              + " type: no spelling for "
              + String.join(", ", missing.stream().map(Value::toString).toList()));
      return Optional.empty();
    }
    return Optional.of(new ValueMap(entries));
  }

  /** The value under {@code key} in a mapping node, without reporting anything. */
  private static Optional<Node> child(Node node, String key) {
    if (node instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
          return Optional.of(t.getValueNode());
        }
      }
    }
    return Optional.empty();
  }
}
