package io.sentinel.site.rules;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.ClaimSpec;
import io.sentinel.rule.InputLoss;
import io.sentinel.rule.Interlock;
import io.sentinel.site.yaml.YamlFile;
import io.sentinel.site.yaml.YamlFile.Fields;
import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;

/** A native interlock rule's class (fail_safe or fail_clear) and a fail_safe's fail_value. */
final class Interlocks {
  private final YamlFile yaml;
  private final RulePolicies policies;

  Interlocks(YamlFile yaml, RulePolicies policies) {
    this.yaml = yaml;
    this.policies = policies;
  }

  /**
   * The class of a rule: none outside band interlock (RULE-072), required in it (RULE-070); a
   * fail_safe interlock with the fail_value it asserts (RULE-073..076).
   */
  Optional<Interlock> interlock(
      Fields f, String id, Optional<Band> band, List<ClaimSpec> claims, Optional<InputLoss> loss) {
    Optional<String> name = className(f, id, band);
    Optional<Value> failValue =
        failValue(f, id, name.filter("fail_safe"::equals).isPresent(), claims, loss);
    return name.flatMap(
        c ->
            c.equals("fail_clear")
                ? Optional.of(new Interlock.FailClear())
                : failValue.map(Interlock.FailSafe::new));
  }

  private Optional<String> className(Fields f, String id, Optional<Band> band) {
    boolean isInterlock = band.filter(b -> b == Band.INTERLOCK).isPresent();
    Optional<String> t = f.get("interlock_class").flatMap(n -> yaml.text(n, "interlock_class", id));
    if (t.isEmpty()) {
      if (isInterlock && !f.has("interlock_class")) {
        yaml.error(
            f.node(),
            RuleCodes.RULE_070,
            id,
            "an interlock rule needs interlock_class: fail_safe or fail_clear");
      }
      return Optional.empty();
    }
    Node n = f.get("interlock_class").orElseThrow();
    Optional<String> c = t.filter(Interlock.NAMES::contains);
    if (c.isEmpty()) {
      yaml.error(
          n,
          RuleCodes.RULE_071,
          id,
          "interlock_class '" + t.get() + "' is not fail_safe or fail_clear");
    }
    if (!isInterlock && band.isPresent()) {
      yaml.error(
          n,
          RuleCodes.RULE_072,
          id,
          "interlock_class belongs to rules in band interlock (this rule is in "
              + band.get().wireName()
              + ")");
    }
    return c;
  }

  private Optional<Value> failValue(
      Fields f, String id, boolean failSafe, List<ClaimSpec> claims, Optional<InputLoss> loss) {
    if (!f.has("fail_value")) {
      if (failSafe) {
        yaml.error(
            f.node(),
            RuleCodes.RULE_073,
            id,
            "a fail_safe interlock needs fail_value: the protective value it asserts from core start");
      }
      return Optional.empty();
    }
    Node n = f.get("fail_value").orElseThrow();
    if (!failSafe) {
      yaml.warning(
          n,
          RuleCodes.RULE_074,
          id,
          "fail_value is used by fail_safe interlocks only; it is ignored here");
      return Optional.empty();
    }
    if (claims.isEmpty()) {
      yaml.error(
          n,
          RuleCodes.RULE_075,
          id,
          "a fail_safe interlock needs claims: the points fail_value protects");
      return Optional.empty();
    }
    Optional<Value> v = policies.valueForAllClaims(n, claims, "fail_value", id);
    if (v.isPresent()
        && loss.isPresent()
        && !(loss.get() instanceof InputLoss.Assert a && a.value().equals(v.get()))) {
      yaml.warning(
          f.keyNode("on_input_loss"),
          RuleCodes.RULE_076,
          id,
          "a fail_safe interlock asserts fail_value on input loss whatever on_input_loss says; write"
              + " on_input_loss: {assert: "
              + v.get()
              + "} to say so");
    }
    return v;
  }
}
