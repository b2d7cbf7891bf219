package io.sentinel.rule;

import io.sentinel.expr.Condition;
import io.sentinel.point.SourceRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated rule: a pure function from its inputs' (value, quality) to claims, plus the policies
 * the engine applies around it. Both rule forms (native and DSL) compile to this.
 *
 * @param inputs declared name to point id, in declaration order (the expression's slots)
 * @param priority orders rules inside a band (DSL priority; 0 for native rules)
 * @param definitionHash identity of the definition, without {@code enabled}: a changed hash resets
 *     the rule's state on a new revision, an unchanged one keeps it
 * @param holdUntil a latch (the DSL's hold_until): once the rule fires, its claims stay asserted,
 *     whatever its condition and inputs do, until this condition holds
 */
public record Rule(
    String id,
    Band band,
    int priority,
    Map<String, String> inputs,
    Trigger trigger,
    Condition when,
    List<ClaimSpec> claims,
    List<ActionSpec> actions,
    InputLoss onInputLoss,
    RequiredQuality requiredQuality,
    Warmup warmup,
    Optional<Interlock> interlock,
    boolean enabled,
    SourceRef where,
    String definitionHash,
    Optional<Condition> holdUntil) {

  public Rule {
    inputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    claims = List.copyOf(claims);
    actions = List.copyOf(actions);
  }

  /** The fail_safe class of an interlock rule, with the value it asserts. */
  public Optional<Interlock.FailSafe> failSafe() {
    return interlock
        .filter(Interlock.FailSafe.class::isInstance)
        .map(Interlock.FailSafe.class::cast);
  }

  public boolean isFailSafe() {
    return failSafe().isPresent();
  }

  public enum RequiredQuality {
    LIVE,
    LIVE_OR_STALE
  }
}
