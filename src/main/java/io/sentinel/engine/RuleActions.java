package io.sentinel.engine;

import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.MessageTemplate;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A rule's actions when its condition holds: on_rise, cooldown, ids and the filled-in message. */
final class RuleActions {
  private final PassOutputs out;

  RuleActions(PassOutputs out) {
    this.out = out;
  }

  /** Fires the actions of {@code r} at {@code t}; {@code wasTrue}: the condition held before. */
  void fire(RuleRuntime r, Instant t, boolean wasTrue) {
    List<ActionSpec> actions = r.rule.actions();
    for (int a = 0; a < actions.size(); a++) {
      ActionSpec spec = actions.get(a);
      if (spec.onRise() && wasTrue) {
        continue;
      }
      Instant last = r.actionLastFired[a];
      if (last != null && t.isBefore(last.plus(spec.cooldown()))) {
        continue;
      }
      r.actionLastFired[a] = t;
      long seq = ++r.actionSeq[a];
      Map<String, String> fields = new LinkedHashMap<>(spec.fields());
      fields.computeIfPresent("message", (k, m) -> render(m, r, spec));
      out.actions.add(
          new ActionFired(
              new ActionId(r.rule.id(), a, seq).toString(), r.rule.id(), spec, fields, t));
    }
  }

  private static String render(String template, RuleRuntime r, ActionSpec spec) {
    return MessageTemplate.render(
        template, spec.fields().keySet(), r.rule.inputs().keySet(), p -> fill(p, r, spec));
  }

  private static String fill(MessageTemplate.Placeholder p, RuleRuntime r, ActionSpec spec) {
    if (p instanceof MessageTemplate.Placeholder.Field f) {
      return spec.fields().get(f.name());
    }
    if (p instanceof MessageTemplate.Placeholder.Input in) {
      var state = r.state(slotOf(r, in.input()));
      return in.quality() ? state.quality().wireName() : state.value().toString();
    }
    return r.rule.id();
  }

  private static int slotOf(RuleRuntime r, String input) {
    for (int slot = 0; slot < r.inputNames.length; slot++) {
      if (r.inputNames[slot].equals(input)) {
        return slot;
      }
    }
    throw new IllegalStateException("no input " + input + " in rule " + r.rule.id());
  }
}
