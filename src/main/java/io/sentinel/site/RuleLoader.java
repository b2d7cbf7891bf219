package io.sentinel.site;

import io.sentinel.point.Registry;
import io.sentinel.rule.Rule;
import io.sentinel.site.dsl.DslCodes;
import io.sentinel.site.dsl.DslLoader;
import io.sentinel.site.rules.NativeRuleLoader;
import io.sentinel.site.rules.RuleCodes;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.RuleShapes;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads the rules of one file, native (seed 000) and DSL (seed 001) alike: one rule or a list per
 * document, documents separated by ---. Each rule goes to {@link NativeRuleLoader} or {@link
 * DslLoader}; checks that need the whole set (duplicate ids, conflicting claims) are {@link
 * io.sentinel.site.rules.RuleSetChecks}'.
 */
public final class RuleLoader {
  private RuleLoader() {}

  /** The rules of one file; every problem goes to {@code problems}. */
  public static List<Rule> load(String file, String text, Registry registry, Problems problems) {
    Map<String, io.sentinel.derived.DerivedPoint> generated = new LinkedHashMap<>();
    List<Rule> rules = load(file, text, registry, SiteSettings.DEFAULT, generated, problems);
    if (!generated.isEmpty()) {
      problems.error(
          DslCodes.DSL_040,
          file,
          0,
          "",
          "built-ins ("
              + String.join(", ", generated.keySet())
              + ") need the whole site: load it with Site.load");
    }
    return rules;
  }

  /**
   * The rules of one file, native and DSL alike (one rule or a list per document, documents
   * separated by ---). Derived points that DSL built-ins need are added to {@code generated}.
   */
  public static List<Rule> load(
      String file,
      String text,
      Registry registry,
      SiteSettings settings,
      Map<String, io.sentinel.derived.DerivedPoint> generated,
      Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    List<Rule> out = new ArrayList<>();
    for (Node root : yaml.parseAll(text)) {
      out.addAll(rules(yaml, root, registry, settings, generated));
    }
    return out;
  }

  /** The rules of an already parsed list node (a revision document's {@code rules:}). */
  public static List<Rule> fromNodes(
      YamlFile yaml,
      Node list,
      Registry registry,
      SiteSettings settings,
      Map<String, io.sentinel.derived.DerivedPoint> generated) {
    if (!(list instanceof SequenceNode)) {
      yaml.error(list, RuleCodes.RULE_001, "", "rules: expected a list of rules");
      return List.of();
    }
    return rules(yaml, list, registry, settings, generated);
  }

  private static List<Rule> rules(
      YamlFile yaml,
      Node root,
      Registry registry,
      SiteSettings settings,
      Map<String, io.sentinel.derived.DerivedPoint> generated) {
    NativeRuleLoader natives = new NativeRuleLoader(yaml, registry);
    Node list = root;
    if (DslLoader.isDsl(root)) {
      return DslLoader.load(yaml, root, registry, settings.timeZone(), settings.zones(), generated);
    }
    if (root instanceof MappingNode) {
      Optional<Fields> top =
          yaml.mapping(root, "rule file", "", RuleShapes.RULE_FILE_MAPPING.keys());
      if (top.isEmpty()) {
        return List.of();
      }
      Optional<Node> rules = top.get().get("rules");
      if (rules.isEmpty()) {
        yaml.error(
            root,
            RuleCodes.RULE_001,
            "",
            "a rule file is a list of rules, or a mapping with rules:");
        return List.of();
      }
      list = rules.get();
    }
    List<Rule> out = new ArrayList<>();
    yaml.sequence(list, "rules", "")
        .ifPresent(
            items ->
                items.forEach(
                    n -> {
                      if (DslLoader.isDsl(n)) {
                        out.addAll(
                            DslLoader.load(
                                yaml,
                                n,
                                registry,
                                settings.timeZone(),
                                settings.zones(),
                                generated));
                      } else {
                        natives.rule(n).ifPresent(out::add);
                      }
                    }));
    return out;
  }
}
