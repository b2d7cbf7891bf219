package io.sentinel.rule;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one rule set differs from the next, rule by rule (seed 004): a rule whose definition hash is
 * unchanged is kept with its state, a changed one is reset, and {@code enabled} is not part of the
 * definition, so toggling it keeps the state too.
 */
public record RuleChanges(
    List<String> kept,
    List<String> toggled,
    List<String> changed,
    List<String> added,
    List<String> removed) {

  public RuleChanges {
    kept = List.copyOf(kept);
    toggled = List.copyOf(toggled);
    changed = List.copyOf(changed);
    added = List.copyOf(added);
    removed = List.copyOf(removed);
  }

  public static RuleChanges between(RuleSet before, RuleSet after) {
    Map<String, Rule> old = new LinkedHashMap<>();
    before.rules().forEach(r -> old.put(r.id(), r));
    List<String> kept = new ArrayList<>();
    List<String> toggled = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    List<String> added = new ArrayList<>();
    for (Rule r : after.rules()) {
      Rule o = old.remove(r.id());
      if (o == null) {
        added.add(r.id());
      } else if (!o.definitionHash().equals(r.definitionHash())) {
        changed.add(r.id());
      } else if (o.enabled() != r.enabled()) {
        toggled.add(r.id());
      } else {
        kept.add(r.id());
      }
    }
    return new RuleChanges(kept, toggled, changed, added, List.copyOf(old.keySet()));
  }

  public boolean none() {
    return toggled.isEmpty() && changed.isEmpty() && added.isEmpty() && removed.isEmpty();
  }

  /** {@code 3 kept, 1 changed (a), 1 added (b)}: for logs and events. */
  public String summary() {
    List<String> parts = new ArrayList<>();
    parts.add(kept.size() + " kept");
    part(parts, "toggled", toggled);
    part(parts, "changed (state reset)", changed);
    part(parts, "added", added);
    part(parts, "removed", removed);
    return String.join(", ", parts);
  }

  private static void part(List<String> parts, String what, List<String> ids) {
    if (!ids.isEmpty()) {
      parts.add(ids.size() + " " + what + " (" + String.join(", ", ids) + ")");
    }
  }
}
