package io.sentinel.rule;

import io.sentinel.expr.Condition;
import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import java.time.Duration;
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
    Optional<Duration> holdMax,
    RequiredQuality requiredQuality,
    Warmup warmup,
    Optional<InterlockClass> interlockClass,
    Optional<Value> failValue,
    boolean enabled,
    SourceRef where,
    String definitionHash,
    Optional<Condition> holdUntil) {

  public Rule {
    inputs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
    claims = List.copyOf(claims);
    actions = List.copyOf(actions);
  }

  /** A rule without a latch. */
  public Rule(
      String id,
      Band band,
      int priority,
      Map<String, String> inputs,
      Trigger trigger,
      Condition when,
      List<ClaimSpec> claims,
      List<ActionSpec> actions,
      InputLoss onInputLoss,
      Optional<Duration> holdMax,
      RequiredQuality requiredQuality,
      Warmup warmup,
      Optional<InterlockClass> interlockClass,
      Optional<Value> failValue,
      boolean enabled,
      SourceRef where,
      String definitionHash) {
    this(
        id,
        band,
        priority,
        inputs,
        trigger,
        when,
        claims,
        actions,
        onInputLoss,
        holdMax,
        requiredQuality,
        warmup,
        interlockClass,
        failValue,
        enabled,
        where,
        definitionHash,
        Optional.empty());
  }

  public boolean isFailSafe() {
    return interlockClass.filter(c -> c == InterlockClass.FAIL_SAFE).isPresent();
  }

  public enum RequiredQuality {
    LIVE,
    LIVE_OR_STALE
  }

  public enum InterlockClass {
    FAIL_SAFE,
    FAIL_CLEAR
  }
}
