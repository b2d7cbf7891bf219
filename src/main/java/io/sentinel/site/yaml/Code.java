package io.sentinel.site.yaml;

/**
 * The id of a problem a loader reports ({@code RULE-040}), declared once in its area's catalogue
 * (an enum whose constants are the ids: {@code RULE_040}). docs/messages.md lists every id.
 */
public interface Code {
  String name();

  /** {@code RULE-040} for {@code RULE_040}. */
  default String id() {
    return name().replace('_', '-');
  }
}
