package io.sentinel.mqtt;

/** The topics of one site, under {@code sentinel/<site>/} (CONTRACT section 2). */
public record Topics(String site) {
  public Topics {
    if (site.isEmpty() || site.contains("/") || site.contains("+") || site.contains("#")) {
      throw new IllegalArgumentException(
          "a site name is one topic level, without / + or #: '" + site + "'");
    }
  }

  public String root() {
    return "sentinel/" + site + "/";
  }

  public String pointPrefix() {
    return root() + "points/";
  }

  /** What the gateway subscribes to for its own points. */
  public String pointsFilter() {
    return pointPrefix() + "+";
  }

  public String point(String pointId) {
    return pointPrefix() + pointId;
  }

  public String command(String pointId) {
    return root() + "commands/" + pointId;
  }

  public String status() {
    return root() + "status";
  }

  /** Where an operator's tool publishes a rule-set revision document, retained. */
  public String ruleset() {
    return root() + "ruleset";
  }

  /** Where the gateway publishes, retained, the signed head of its audit chain. */
  public String auditAnchor() {
    return root() + "audit/anchor";
  }

  /** Where the gateway says, retained, whether the last revision offered is active or rejected. */
  public String rulesetStatus() {
    return root() + "ruleset/status";
  }

  /**
   * Where the gateway reports, retained, the shadow revision and how it differs (docs/shadow.md).
   */
  public String rulesetShadow() {
    return root() + "ruleset/shadow";
  }

  public String claims(String pointId) {
    return root() + "claims/" + pointId;
  }

  public String events(String kind) {
    return root() + "events/" + kind;
  }

  /** Where the gateway publishes, retained, what a point it senses holds (docs/devices.md). */
  public String state(String pointId) {
    return root() + "state/" + pointId;
  }

  public String self(String name) {
    return root() + "self/" + name;
  }
}
